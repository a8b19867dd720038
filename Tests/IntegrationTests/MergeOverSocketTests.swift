import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Merge strategies, exact global pagination, merged facets and circuit breakers, end to end.
@Suite(.serialized)
struct MergeOverSocketTests {
    static func scored(_ scores: [Double], delayMs: Int = 0, facets: JSONValue = [:]) -> JSONValue {
        ["backend": "test.fault", "scores": .array(scores.map { .number($0) }), "delayMs": .number(Double(delayMs)), "facets": facets]
    }

    func mergedHits(_ frames: [Frame]) -> [MergedHit] {
        for f in frames { if case .merged(_, let m) = f { return m.hits } }
        return []
    }

    func start() throws -> DaemonProcess {
        try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("a", Self.scored([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05])),
                ("b", Self.scored([0.85, 0.45, 0.44, 0.43])),
                ("c", Self.scored([0.95])),
            ]))
    }

    @Test func scoreMergeWithWeightsAndFederationAnnotations() throws {
        let d = try start()
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "m", "query": "x", "indices": ["a", ["index": "b", "weight": 2]], "merge": ["limit": 4],
        ])
        let hits = mergedHits(frames)
        #expect(hits.map(\.hit.objectID) == ["b-0", "a-0", "b-1", "b-2"])
        #expect(hits.first?.weightedScore == 1.7)
        #expect(hits.first?.rank == 0)
        if case .merged(_, let m)? = frames.first(where: { $0.type == "merged" }) {
            #expect(m.extra["strategy"] == "score")
            #expect(m.nbHits == 14)
        }
    }

    @Test func paginationIsExactAcrossPages() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        let full = mergedHits(try c.roundTrip(["id": "all", "query": "x", "merge": ["limit": 15]])).map(\.hit.objectID)
        #expect(full.count == 15)
        var paged: [String] = []
        for page in 0..<3 {
            let frames = try c.roundTrip([
                "id": .string("p\(page)"), "query": "x", "merge": ["offset": .number(Double(page * 5)), "limit": 5],
            ])
            // Each source was asked for offset + limit hits and no more.
            for f in frames {
                if case .results(_, _, let r) = f { #expect(r.hitsPerPage == page * 5 + 5) }
            }
            paged += mergedHits(frames).map(\.hit.objectID)
        }
        #expect(paged == full, "pages concatenate to the full order, no duplicate, no hole")
        #expect(Set(paged).count == paged.count)
    }

    @Test func rrfInterleaveAndGrouped() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        let interleaved = mergedHits(
            try c.roundTrip([
                "id": "i", "query": "x", "indices": ["a", "b"], "merge": ["strategy": "interleave", "limit": 4],
            ])
        ).map(\.hit.objectID)
        #expect(interleaved == ["a-0", "b-0", "a-1", "b-1"])
        let rrf = mergedHits(
            try c.roundTrip([
                "id": "r", "query": "x", "indices": ["c", "a"], "merge": ["strategy": "rrf", "limit": 3],
            ]))
        #expect(rrf.map(\.hit.objectID) == ["c-0", "a-0", "a-1"])
        #expect(abs(rrf[0].weightedScore - 1.0 / 61) < 1e-9)
        let grouped = try c.roundTrip(["id": "g", "query": "x", "merge": ["strategy": "grouped"]])
        #expect(!grouped.contains { $0.type == "merged" })
        #expect(grouped.last?.type == "done")
    }

    @Test func quotasAndBadMergeOptions() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        let hits = mergedHits(
            try c.roundTrip([
                "id": "q", "query": "x", "indices": ["a", "b"], "merge": ["limit": 4, "minPerIndex": ["b": 3]],
            ]))
        #expect(hits.filter { $0.index == "b" }.count == 3)
        let capped = mergedHits(
            try c.roundTrip([
                "id": "q2", "query": "x", "indices": ["a", "b"], "merge": ["limit": 6, "maxPerIndex": ["a": 1]],
            ]))
        #expect(capped.filter { $0.index == "a" }.count == 1)
        #expect(errorCode(try c.roundTrip(["id": "e", "query": "x", "merge": ["strategy": "best"]]).first) == "invalid_field")
        #expect(errorCode(try c.roundTrip(["id": "e2", "query": "x", "merge": ["limt": 3]]).first) == "unknown_field")
        #expect(errorCode(try c.roundTrip(["id": "e3", "query": "x", "merge": ["minPerIndex": ["zzz": 1]]]).first) == "invalid_field")
    }

    @Test func facetsMergeAcrossIndicesWithAliases() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("products", Self.scored([0.5], facets: ["supplier": ["HP": 5, "Dell": 2]])),
                ("phones", Self.scored([0.5], facets: ["brand": ["HP": 1, "Apple": 4]])),
                ("late", Self.scored([0.5], delayMs: 2000, facets: ["brand": ["Sony": 9]])),
            ]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "f", "query": "x", "indices": ["products", "phones", ["index": "late", "timeoutMs": 50]],
            "params": ["facets": ["brand"]], "mergeFacets": ["maxValuesPerFacet": 10],
            "facetAliases": ["brand": ["products": "supplier"]],
        ])
        let m = try #require(frames.first(where: { $0.type == "merged" })?.mergedValue, "no merged: \(frames)")
        let brand = m.extra["facets"]?.objectValue?["brand"]?.objectValue
        #expect(brand?["values"] == ["HP": 6, "Apple": 4, "Dell": 2])
        #expect(brand?["indices"] == ["products", "phones"])
        #expect(m.extra["exhaustive"] == false, "a source timed out")
    }

    @Test func breakerOpensSkipsThenProbesAndCloses() throws {
        // A back-off far longer than request 3 and `stats` take to follow request 2 on a loaded
        // machine (the probe is then polled for, not slept for).
        let breaker: JSONValue = ["failureThreshold": 2, "baseBackoffMs": 3000, "maxBackoffMs": 6000]
        var config = FaultConfigs.config([("ok", FaultConfigs.source()), ("bad", FaultConfigs.source(mode: "fail"))])
        config["circuitBreaker"] = breaker
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        func badStatus(_ id: String) throws -> SourceReport? {
            guard case .done(_, _, let sources, _)? = try c.roundTrip(["id": .string(id), "query": "x"]).last else { return nil }
            return sources.first { $0.name == "bad" }?.report
        }
        #expect(try badStatus("1")?.status == .error)
        #expect(try badStatus("2")?.status == .error)
        // Open: skipped, with the time until a probe is let through.
        let skipped = try badStatus("3")
        #expect(skipped?.status == .skipped)
        #expect((skipped?.suspendedForMs ?? 0) > 0)
        let statsFrames = try c.roundTrip(["id": "s", "op": "stats"])
        let stats = try #require(statsFrames.first?.infoPayload("stats"), "no stats: \(statsFrames)")
        #expect(stats["circuitBreakers"]?.objectValue?["bad"]?.objectValue?["state"] == "open")
        // The source recovers (a reload swaps its config; the breaker's history stays).
        try d.rewriteConfig(
            {
                var fixed = FaultConfigs.config([("ok", FaultConfigs.source()), ("bad", FaultConfigs.source())])
                fixed["circuitBreaker"] = breaker
                return fixed
            }())
        #expect(try c.roundTrip(["id": "r", "op": "reload"]).first?.type == "reload")
        // Skipped until the back-off ends; then half-open: one probe goes through and
        // succeeds, which closes the breaker.
        var probe: SourceReport?
        _ = try poll(seconds: 20) {
            probe = try badStatus("4")
            return probe?.status != .skipped
        }
        #expect(probe?.status == .ok, "\(String(describing: probe))")
        #expect(try badStatus("5")?.status == .ok)
        let afterFrames = try c.roundTrip(["id": "s2", "op": "stats"])
        let after = try #require(afterFrames.first?.infoPayload("stats"), "no stats: \(afterFrames)")
        #expect(after["circuitBreakers"]?.objectValue?["bad"]?.objectValue?["state"] == "closed")
    }

    /// A deadline the client chose says nothing about the index: searches that time out on
    /// their own `timeoutMs: 1` do not open its breaker for everyone else.
    @Test func clientDeadlinesDoNotOpenTheBreaker() throws {
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 100))])
        config["circuitBreaker"] = ["failureThreshold": 2, "baseBackoffMs": 60_000, "maxBackoffMs": 60_000]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        func status(_ id: String, timeoutMs: Int?) throws -> SourceReport? {
            var request: JSONObject = ["id": .string(id), "query": "x"]
            if let timeoutMs { request["timeoutMs"] = .number(Double(timeoutMs)) }
            guard case .done(_, _, let sources, _)? = try c.roundTrip(.object(request)).last else { return nil }
            return sources.first?.report
        }
        for i in 0..<5 { #expect(try status("short\(i)", timeoutMs: 1)?.status == .timeout) }
        #expect(try status("normal", timeoutMs: nil)?.status == .ok)
        let statsFrames = try c.roundTrip(["id": "s", "op": "stats"])
        let stats = try #require(statsFrames.first?.infoPayload("stats"), "no stats: \(statsFrames)")
        #expect(stats["circuitBreakers"]?.objectValue?["slow"]?.objectValue?["state"] == "closed")
        // A timeout on the index's own deadline still counts.
        for i in 0..<2 { #expect(try status("own\(i)", timeoutMs: 5000)?.status == .ok) }
    }
}
