import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// The shipped daemon on small embedded indices: real engine, real socket, real binary.
@Suite(.serialized)
struct EmbeddedDaemonTests {
    static let movies = """
        {"objectID":"m1","title":"Star Wars","year":1977,"genres":["Science Fiction","Action"]}
        {"objectID":"m2","title":"The Empire Strikes Back","year":1980,"genres":["Science Fiction"],"extract":"The second Star Wars film."}
        {"objectID":"m3","title":"Amélie","year":2001,"genres":["Comedy","Romance"]}
        {"objectID":"m4","title":"Wars of the Roses","year":1989,"genres":["Comedy"]}
        """
    static let products = """
        {"objectID":"p1","title":"Star Wars Lego Falcon","supplier":"Lego","price":159}
        {"objectID":"p2","title":"Star Trek Phaser","supplier":"Mattel","price":30}
        {"objectID":"p3","title":"Wars board game","supplier":"Hasbro","price":25}
        """
    static let config: JSONObject = [
        "searchables": [
            "movies": [
                "data": "movies.ndjson", "searchableAttributes": ["title", "unordered(extract)"],
                "attributesForFaceting": ["genres", "year"],
            ],
            "products": [
                "data": "products.ndjson", "searchableAttributes": ["title", "supplier"],
                "attributesForFaceting": ["supplier", "price"],
            ],
        ]
    ]

    func start() throws -> DaemonProcess { try Self.daemon() }

    /// The daemon on the two small indices, with `config` (default: ``config``).
    static func daemon(config: JSONObject = config) throws -> DaemonProcess {
        try DaemonProcess(config: config, files: ["movies.ndjson": movies, "products.ndjson": products])
    }

    /// `stats.placement` says where searches ran: a client that waits for each answer gets
    /// them at once on the loop with no task; a pipelined batch keeps tasks (the first on the
    /// loop, the rest off it, one source after another while others run). Only quick indices
    /// run on the loop, and a debug build's first searches can be slow (its recent mean then
    /// takes some searches to come down): the test waits until one search goes direct.
    @Test func placementFollowsTheClient() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        func placement() throws -> JSONObject {
            guard case .info(_, "stats", let stats)? = try c.roundTrip(["id": "s", "op": "stats"]).first,
                let placement = stats["placement"]?.objectValue
            else { throw DaemonProcess.DaemonError(description: "no stats.placement") }
            return placement
        }
        func count(_ p: JSONObject, _ key: String) -> Int { p[key]?.intValue ?? -1 }
        var wentDirect = false
        for i in 0..<500 where !wentDirect {
            let before = count(try placement(), "direct")
            #expect(try c.roundTrip(["id": .string("w\(i)"), "query": "star", "indices": ["movies"]]).last?.type == "done")
            wentDirect = count(try placement(), "direct") == before + 1
        }
        #expect(wentDirect, "no search of a waiting client took the direct path")
        let before = try placement()
        var batch: [UInt8] = []
        for i in 0..<3 {
            batch += Array((JSONWriter.string(["id": .string("b\(i)"), "query": "wars", "indices": ["movies"]]) + "\n").utf8)
        }
        try c.sendRaw(batch)
        var open: Set<String> = ["b0", "b1", "b2"]
        while !open.isEmpty, let f = try c.readFrame() {
            if case .done(let id, _, _, _) = f, let id { open.remove(id) }
        }
        #expect(open.isEmpty)
        let after = try placement()
        let delta = Dictionary(
            uniqueKeysWithValues: ["direct", "loop", "parallel"].map {
                ($0, count(after, $0) - count(before, $0))
            })
        // None goes direct, and each is counted once: on the loop the first and off it the
        // rest, or (if the index's recent mean passed the loop's budget meanwhile, as a debug
        // build's searches near 1 ms can) off the loop all three.
        #expect(delta["direct"] == 0, "\(before) -> \(after)")
        #expect(
            delta == ["direct": 0, "loop": 1, "parallel": 2]
                || delta == ["direct": 0, "loop": 0, "parallel": 3], "\(before) -> \(after)")
    }

    @Test func twoIndexSearchYieldsBothResultsThenMergedThenDone() throws {
        let d = try start()
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "q1", "query": "star wars", "indices": ["movies", "products"], "params": ["facets": ["genres", "supplier"]],
        ])
        #expect(frames.map(\.type) == ["results", "results", "merged", "done"])
        var byIndex: [String: SearchResults] = [:]
        for f in frames { if case .results(_, let index, let r) = f { byIndex[index] = r } }
        #expect(Set(byIndex["movies"]?.hits.map(\.objectID) ?? []) == ["m1", "m2"])
        #expect(byIndex["movies"]?.hits.first?.objectID == "m1", "a title match ranks above an extract match")
        #expect(byIndex["products"]?.hits.map(\.objectID) == ["p1"])
        #expect(byIndex["movies"]?.facets.first { $0.attribute == "genres" }?.values.first?.value == "Science Fiction")
        #expect(byIndex["movies"]?.index == "movies")
        let highlight = byIndex["movies"]?.hits.first?.highlightResult?["title"]?.objectValue?["value"]?.stringValue
        #expect(highlight == "<em>Star</em> <em>Wars</em>")
        for r in byIndex.values { #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) }) }
        try #require(frames.count == 4)
        let merged = try #require(frames[2].mergedValue, "\(frames)")
        #expect(merged.nbHits == 3)
        #expect(Set(merged.hits.map(\.hit.objectID)) == ["m1", "m2", "p1"])
        let scores = merged.hits.map(\.hit.rankingScore)
        #expect(scores.count == 3)
    }

    @Test func filtersFacetFiltersAndPagination() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        let filtered = try c.roundTrip([
            "id": "f", "query": "", "indices": ["movies"],
            "params": ["filters": "genres:Comedy AND year < 2000", "hitsPerPage": 10],
        ])
        try #require(!filtered.isEmpty)
        let r = try #require(filtered[0].resultsValue, "\(filtered)")
        #expect(r.hits.map(\.objectID) == ["m4"])
        let paged = try c.roundTrip(["id": "p", "query": "", "indices": ["movies"], "params": ["hitsPerPage": 3, "page": 1]])
        let p = try #require(paged.first?.resultsValue, "\(paged)")
        #expect(p.nbHits == 4)
        #expect(p.nbPages == 2)
        #expect(p.hits.count == 1)
        let facetFiltered = try c.roundTrip([
            "id": "ff", "query": "star", "indices": ["products"],
            "params": [
                "facetFilters": [["supplier:Lego", "supplier:Mattel"]],
                "numericFilters": ["price > 100"],
            ],
        ])
        let ff = try #require(facetFiltered.first?.resultsValue, "\(facetFiltered)")
        #expect(ff.hits.map(\.objectID) == ["p1"])
    }

    /// A refinement on one index's facet sent to every index (what InstantSearch's child
    /// `index` widgets do) narrows that index and leaves the others with nothing, as in
    /// Algolia: no source fails. Numeric filters work on attributes that are not facets.
    @Test func filterOnAnAttributeAnIndexLacksMatchesNothingThere() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip(["id": "x", "query": "star", "params": ["facetFilters": [["genres:Science Fiction"]]]])
        #expect(!frames.contains { if case .error = $0 { return true } else { return false } }, "\(frames)")
        var byIndex: [String: SearchResults] = [:]
        for f in frames { if case .results(_, let name, let r) = f { byIndex[name] = r } }
        #expect(Set(byIndex["movies"]?.hits.map(\.objectID) ?? []) == ["m1", "m2"])
        #expect(byIndex["products"]?.nbHits == 0)
        let status = try #require(frames.last?.doneValue, "no done: \(frames)").status
        #expect(status == .ok)
        let numeric = try c.roundTrip(["id": "n", "query": "", "indices": ["movies"], "params": ["filters": "year < 1985"]])
        let years = numeric.compactMap { f -> [String]? in
            if case .results(_, _, let r) = f { return r.hits.map(\.objectID) } else { return nil }
        }
        #expect(Set(years.first ?? []) == ["m1", "m2"])
        // A filter that does not parse is still an error.
        let bad = try c.roundTrip(["id": "b", "query": "star", "params": ["filters": "genres:"]])
        #expect(bad.contains { if case .error(_, _, let e) = $0 { return e.code == .invalidFilter } else { return false } }, "\(bad)")
    }

    @Test func perIndexOverridesApplyToOneIndex() throws {
        let d = try start()
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "o", "query": "wars", "params": ["hitsPerPage": 10], "perIndex": ["movies": ["filters": "year > 1985"]],
        ])
        for f in frames {
            if case .results(_, "movies", let r) = f { #expect(r.hits.map(\.objectID) == ["m4"]) }
            if case .results(_, "products", let r) = f { #expect(Set(r.hits.map(\.objectID)) == ["p1", "p3"]) }
        }
    }

    @Test func indicesAndStatsDescribeTheDaemon() throws {
        let d = try start()
        defer { d.stop() }
        let c = try d.connect()
        _ = try c.roundTrip(["id": "warm", "query": "star"])
        let indices = try c.roundTrip(["id": "i", "op": "indices"])
        let payload = try #require(indices.first?.infoPayload("indices"), "no indices frame")
        let list = payload["indices"]?.arrayValue ?? []
        #expect(list.compactMap { $0.objectValue?["name"]?.stringValue } == ["movies", "products"])
        #expect(list.first?.objectValue?["documents"] == 4)
        #expect(list.first?.objectValue?["backend"] == "embedded")
        #expect(list.first?.objectValue?["attributesForFaceting"] == ["genres", "year"])
        let statsFrames = try c.roundTrip(["id": "s", "op": "stats"])
        let stats = try #require(statsFrames.first?.infoPayload("stats"), "no stats frame")
        #expect(stats["queriesServed"] == 1)
        #expect(stats["latency"]?.objectValue?["movies"]?.objectValue?["samples"] == 1)
        #expect(stats["latency"]?.objectValue?["movies"]?.objectValue?["p50Ms"]?.numberValue != nil)
    }

    @Test func cliSearchPrintsEachIndexThenMergedAndExitsZero() throws {
        let d = try start()
        defer { d.stop() }
        let (status, out, _) = try runCLI([
            "--socket", d.socketPath, "search", "star wars", "--index", "movies,products", "--facets", "genres",
        ])
        #expect(status == 0)
        #expect(out.contains("movies  2 hits"))
        #expect(out.contains("products  1 hits"))
        #expect(out.contains("merged  3 hits in all"))
        #expect(out.contains("facet genres: Science Fiction (2)"))
        #expect(out.contains("done (ok)"))
        let (jsonStatus, json, _) = try runCLI(["search", "star", "--json", "--socket", d.socketPath])
        #expect(jsonStatus == 0)
        let types = json.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)).objectValue?["type"]?.stringValue }
        #expect(types.last == "done")
        #expect(types.filter { $0 == "results" }.count == 2)
    }

    @Test func cliExitCodes() throws {
        let d = try start()
        defer { d.stop() }
        #expect(try runCLI(["--socket", d.socketPath, "ping"]).0 == 0)
        #expect(try runCLI(["--socket", d.socketPath, "search", "x", "--index", "nope"]).0 == 1)
        #expect(try runCLI(["--socket", d.socketPath, "search", "x", "--hits", "many"]).0 == 2)
        #expect(try runCLI(["--socket", d.socketPath, "frobnicate"]).0 == 2)
        #expect(try runCLI(["--socket", d.socketPath + ".missing", "ping"]).0 == 1)
        let help = try runCLI(["search", "--help"])
        #expect(help.0 == 0)
        #expect(help.1.contains("--facets"))
    }

    /// The CLI says its version, suggests the command meant, numbers pages as it prints them,
    /// reads an index without a dataDir, and prints stats and reload as lines.
    @Test func cliVersionSuggestionsPagesReadsAndReports() throws {
        let d = try start()
        defer { d.stop() }
        for args in [["--version"], ["version"]] {
            let v = try runCLI(args)
            #expect(v.0 == 0 && v.1 == "fedsearch \(FederatedSearchVersion.string)\n", "\(v)")
        }
        let typo = try runCLI(["--socket", d.socketPath, "serch", "x"])
        #expect(typo.0 == 2)
        #expect(typo.2.contains("did you mean 'search'?"), "\(typo.2)")
        #expect(typo.2.contains("commands: search, watch, facets"), "\(typo.2)")
        // An unknown index: the indices there are, and the one probably meant.
        let index = try runCLI(["--socket", d.socketPath, "search", "x", "--index", "movis"])
        #expect(index.0 == 1)
        #expect(index.2.contains("no index named 'movis'; did you mean 'movies'? (indices: movies, products)"), "\(index.2)")
        let far = try runCLI(["--socket", d.socketPath, "frobnicate"])
        #expect(!far.2.contains("did you mean"), "\(far.2)")
        let second = try runCLI(["--socket", d.socketPath, "search", "", "--index", "movies", "--hits", "1", "--page", "2"])
        #expect(second.0 == 0)
        #expect(second.1.contains("page 2/"), "\(second.1)")
        #expect(try runCLI(["--socket", d.socketPath, "search", "", "--page", "0"]).0 == 2)
        // Reads need no dataDir: documents and settings come from the index in memory.
        let got = try runCLI(["--socket", d.socketPath, "get", "products", "p2", "nope"])
        #expect(
            got.0 == 0 && got.1 == #"{"objectID":"p2","title":"Star Trek Phaser","supplier":"Mattel","price":30}"# + "\nnull\n", "\(got)")
        let settings = try runCLI(["--socket", d.socketPath, "settings", "products"])
        #expect(settings.0 == 0 && settings.1.contains(#""attributesForFaceting":["supplier","price"]"#), "\(settings)")
        #expect(!settings.1.contains("products.ndjson"), "the data files are not settings: \(settings.1)")
        let write = try runCLI(["--socket", d.socketPath, "delete", "products", "p2"])
        #expect(write.0 == 1 && write.2.contains("not_writable"), "\(write)")
        // stats and reload print lines like the other commands (--json keeps the frames).
        let stats = try runCLI(["--socket", d.socketPath, "stats"])
        #expect(stats.0 == 0 && stats.1.hasPrefix("up "), "\(stats)")
        #expect(stats.1.contains("movies  p50 "), "\(stats.1)")
        #expect(stats.1.contains("waiting: 0 searches queued, 0 bytes of answers unread by clients"), "\(stats.1)")
        let reload = try runCLI(["--socket", d.socketPath, "reload"])
        #expect(reload.0 == 0 && reload.1.hasPrefix("reloaded (ok): rebuilt none; kept movies, products"), "\(reload)")
    }

    func runCLI(_ arguments: [String]) throws -> (Int32, String, String) {
        let r = try runBuilt("fedsearch", arguments)
        return (r.status, r.out, r.err)
    }
}

/// `indices` objects on the real engine: one index feeds two columns with different filters.
@Suite(.serialized)
struct EmbeddedTargetTests {
    @Test func sameIndexTwiceWithDifferentParams() throws {
        let d = try EmbeddedDaemonTests.daemon()
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "c", "query": "",
            "indices": [
                ["index": "movies", "as": "classics", "params": ["filters": "year < 1985"]],
                ["index": "movies", "as": "recent", "params": ["filters": "year >= 1985"]],
            ],
        ])
        var byName: [String: [String]] = [:]
        for f in frames { if case .results(_, let name, let r) = f { byName[name] = r.hits.map(\.objectID).sorted() } }
        #expect(byName["classics"] == ["m1", "m2"])
        #expect(byName["recent"] == ["m3", "m4"])
    }
}

/// The `searchForFacetValues` op on the real engine.
@Suite(.serialized)
struct FacetValueSearchTests {
    @Test func valuesMatchingAPrefixAreCountedUnderTheQuery() throws {
        let d = try EmbeddedDaemonTests.daemon()
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip([
            "id": "f", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "sci",
        ])
        let p = try #require(frames.first?.infoPayload("facetHits"), "\(frames)")
        let hits = p["facetHits"]?.arrayValue ?? []
        #expect(hits.count == 1)
        #expect(hits.first?.objectValue?["value"] == "Science Fiction")
        #expect(hits.first?.objectValue?["count"] == 2)
        #expect(hits.first?.objectValue?["highlighted"] == "<em>Sci</em>ence Fiction")
        // Counted under the query and filters: only "Star Wars" matches "star".
        let narrowed = try c.roundTrip([
            "id": "g", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "",
            "query": "star", "params": ["filters": "year < 1978"],
        ])
        let q = try #require(narrowed.first?.infoPayload(), "\(narrowed)")
        let values = (q["facetHits"]?.arrayValue ?? []).compactMap { $0.objectValue?["value"]?.stringValue }
        #expect(Set(values) == ["Science Fiction", "Action"])
        #expect(
            errorCode(
                try c.roundTrip([
                    "id": "h", "op": "searchForFacetValues", "index": "movies", "facetName": "title", "facetQuery": "x",
                ]).first) == "invalid_field")
        #expect(
            errorCode(
                try c.roundTrip([
                    "id": "i", "op": "searchForFacetValues", "index": "nope", "facetName": "genres",
                ]).first) == "unknown_index")
    }
}

/// A facet value search lives like a search: a client that half-closes right after sending
/// it still gets its answer, and the daemon counts it against its limits.
@Suite(.serialized)
struct FacetValueSearchLifetimeTests {
    @Test func aClientThatHalfClosesAfterSendingGetsItsAnswer() throws {
        let d = try EmbeddedDaemonTests.daemon()
        defer { d.stop() }
        let client = """
            import socket, sys
            answered = 0
            for i in range(40):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
                s.sendall(b'{"id":"f","op":"searchForFacetValues","index":"movies","facetName":"genres","facetQuery":"sci"}\\n')
                s.shutdown(socket.SHUT_WR)
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
                answered += b'"type":"facetHits"' in data
                s.close()
            print(answered)
            """
        let r = try runProgram(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", client, d.socketPath])
        #expect(r.status == 0, "\(r)")
        #expect(r.out.trimmingCharacters(in: .whitespacesAndNewlines) == "40", "\(r)")
    }

    /// Counted with the searches: past `maxRequestsPerConnection` in flight, the connection's
    /// lines wait, as a search's would; every one is answered, none refused.
    @Test func facetValueSearchesCountAgainstTheConnectionLimit() throws {
        var config = EmbeddedDaemonTests.config
        config["limits"] = ["maxRequestsPerConnection": 1]
        let d = try EmbeddedDaemonTests.daemon(config: config)
        defer { d.stop() }
        let c = try d.connect()
        var lines: [UInt8] = []
        for i in 0..<20 {
            lines += Array(#"{"id":"f\#(i)","op":"searchForFacetValues","index":"movies","facetName":"genres","facetQuery":"s"}"#.utf8)
            lines.append(0x0A)
        }
        try c.sendRaw(lines)
        var answered = 0
        var refused = 0
        while answered + refused < 20, let frame = try c.readFrame() {
            switch frame {
            case .info(_, "facetHits", _): answered += 1
            case .error(_, _, let e) where e.code == .tooManyRequests: refused += 1
            default: Issue.record("unexpected \(frame)")
            }
        }
        #expect(answered == 20)
        #expect(refused == 0)
    }

    /// Counted with the daemon's searches: past `maxRunningSearches` a facet value search
    /// waits in the queue (`stats.queuedSearches`) and runs when the slot frees; a queued one
    /// can be cancelled, and one whose client goes away leaves the queue.
    @Test func facetValueSearchesWaitInTheDaemonsQueue() throws {
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 1500))])
        var searchables = config["searchables"]?.objectValue ?? [:]
        searchables["movies"] = ["data": "movies.ndjson", "attributesForFaceting": ["genres"]]
        config["searchables"] = .object(searchables)
        config["limits"] = ["maxRunningSearches": 1]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config, files: ["movies.ndjson": EmbeddedDaemonTests.movies])
        defer { d.stop() }
        let busy = try d.connect()
        try busy.send(["id": "slow", "query": "x", "indices": ["slow"]])
        let observer = try d.connect()
        let early = try barrier(busy)  // once the pong is back, the slow search holds the one slot
        let waiting = try d.connect()
        try waiting.send(["id": "f", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "sci"])
        let cancelled = try d.connect()
        try cancelled.send(["id": "c", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "com"])
        var gone: SocketConnection? = try d.connect()
        try gone?.send(["id": "g", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "act"])
        let queued = try pollStats(observer) { $0["queuedSearches"]?.intValue == 3 }
        #expect(queued?["queuedSearches"]?.intValue == 3, "\(String(describing: queued))")
        try cancelled.send(["id": "stop", "op": "cancel", "target": "c"])
        gone = nil  // closed
        let left = try pollStats(observer) { $0["queuedSearches"]?.intValue == 1 }
        #expect(left?["queuedSearches"]?.intValue == 1, "cancelled and gone leave the queue: \(String(describing: left))")
        var ends: [String] = []
        while let frame = try cancelled.readFrame() {
            if case .error("c"?, _, let e) = frame { ends.append(e.code.rawValue) }
            if !ends.isEmpty { break }
        }
        #expect(ends == ["cancelled"])
        // Once the slow search ends, the waiting one runs.
        #expect(try collect(busy, id: "slow", already: early).last?.type == "done")
        let answer = try waiting.readFrame()
        try #require(answer?.id == "f", "no facetHits for f")
        let payload = try #require(answer?.infoPayload("facetHits"), "no facetHits for f")
        #expect(payload["facetHits"]?.arrayValue?.first?.objectValue?["value"] == "Science Fiction")
    }
}

/// A search sent just before an over-long line still gets all its frames before the daemon
/// closes the connection (the error for the long line, then the search's frames, then EOF).
@Suite(.serialized)
struct EmbeddedLongLineTests {
    @Test func aSearchBeforeAnOverLongLineIsAnsweredWhole() throws {
        var config = EmbeddedDaemonTests.config
        config["maxLineBytes"] = 4096
        let d = try EmbeddedDaemonTests.daemon(config: config)
        defer { d.stop() }
        for round in 0..<6 {
            // Odd rounds with a client that polls before it sleeps: it too sees the end.
            let c = round % 2 == 0 ? try d.connect() : try SocketConnection(path: d.socketPath, timeoutSeconds: 20, busyPollMicros: 500)
            var bytes = JSONWriter.bytes(["id": .string("s\(round)"), "query": "star wars", "indices": ["movies"]])
            bytes.append(0x0A)
            bytes += Array("{\"query\":\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: 10_000)
            try c.sendRaw(bytes)
            var types: [String] = []
            while let frame = try c.readFrame() { types.append(frame.type) }
            #expect(types.filter { $0 != "error" } == ["results", "merged", "done"], "round \(round): \(types)")
            #expect(types.contains("error"))
        }
    }
}
