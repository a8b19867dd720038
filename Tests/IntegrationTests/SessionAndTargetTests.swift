import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Sessions (a newer seq supersedes older work on the server) and `indices` objects (one
/// index under two names, per-source params, weights and deadlines).
@Suite(.serialized)
struct SessionAndTargetTests {
    @Test func newerSeqSupersedesTheOlderRequest() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("slow", FaultConfigs.source(delayMs: 3000))
            ]))
        defer { d.stop() }
        let c = try d.connect()
        let started = Date()
        try c.send(["id": "k1", "query": "s", "session": "typing", "seq": 1])
        var frames = try barrier(c)  // once the pong is back, k1 runs
        try c.send(["id": "k2", "query": "st", "session": "typing", "seq": 2, "timeoutMs": 100])
        while let f = try c.readFrame() {
            frames.append(f)
            if f.id == "k2", f.type == "done" { break }
        }
        #expect(Date().timeIntervalSince(started) < 2.5, "k1's 3 s of work must not be waited for")
        let k1 = frames.filter { $0.id == "k1" }
        #expect(k1.count == 1, "only the superseded done frame of k1: \(k1)")
        let (status, sources) = try #require(k1.first?.doneValue, "no done for k1")
        #expect(status == .superseded)
        #expect(sources.map(\.report.status) == [.superseded])
        // k1's done comes before anything of k2, and nothing of k1 comes later.
        let firstK2 = try #require(frames.firstIndex { $0.id == "k2" })
        #expect(try #require(frames.firstIndex { $0.id == "k1" }) < firstK2)
        // The superseded task's late frames are dropped: wait until its cancelled task has
        // ended (k1 and k2 counted in `stats`, asked on another connection so no frame of this
        // one is skipped), then every frame up to a ping's pong must be that pong (read raw: a
        // round trip would skip frames of other ids, and could not fail).
        let counted = try pollStats(try d.connect()) { $0["queriesServed"]?.intValue == 2 }
        #expect(counted?["queriesServed"]?.intValue == 2, "k1's task ended")
        let late = try barrier(c, id: "p")
        #expect(late.isEmpty, "frames after k2's done: \(late)")
    }

    @Test func staleSeqIsAnsweredAsSupersededWithoutRunning() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let c = try d.connect()
        _ = try c.roundTrip(["id": "a", "query": "x", "session": "t", "seq": 5])
        let frames = try c.roundTrip(["id": "b", "query": "x", "session": "t", "seq": 4])
        #expect(frames.count == 1)
        try #require(frames.first?.doneValue?.status == .superseded, "\(frames)")
        // Other sessions and requests without a session are independent.
        #expect(try c.roundTrip(["id": "c", "query": "x", "session": "u", "seq": 1]).last?.type == "done")
        #expect(try c.roundTrip(["id": "d", "query": "x"]).map(\.type) == ["results", "merged", "done"])
    }

    /// A superseded search gives back only the breaker probes it holds: superseding a search
    /// that was skipped while another request probes the index must not let the newer one
    /// send a second probe (the protocol: one request probes; meanwhile others skip it).
    @Test func supersedingASearchThatDidNotProbeKeepsTheOtherRequestsProbe() throws {
        var config = FaultConfigs.config([
            ("flaky", FaultConfigs.source(delayMs: 1500, mode: "fail")),
            ("slow", FaultConfigs.source(delayMs: 5000)),
        ])
        config["circuitBreaker"] = ["failureThreshold": 1, "baseBackoffMs": 200, "maxBackoffMs": 400]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        // One failure opens the breaker (a timeout on a deadline the client chose would not);
        // once its back-off ends, request "probe" is the probe.
        _ = try c.roundTrip(["id": "open", "query": "x", "indices": ["flaky"]])
        try waitForStats(d.connect(), "the breaker open and its back-off over") { s in
            let flaky = s["circuitBreakers"]?.objectValue?["flaky"]?.objectValue
            return flaky?["state"]?.stringValue == "open" && flaky?["suspendedForMs"]?.intValue == 0
        }
        try c.send(["id": "probe", "query": "x", "indices": ["flaky"]])
        var early = try barrier(c, id: "b1")
        // The probe's task has admitted it (which makes the breaker half-open).
        try waitForStats(d.connect(), "the probe admitted") {
            $0["circuitBreakers"]?.objectValue?["flaky"]?.objectValue?["state"]?.stringValue == "halfOpen"
        }
        // A search of the session skips the probed index (its other source keeps it running)...
        try c.send(["id": "k1", "query": "x", "indices": ["flaky", "slow"], "session": "s", "seq": 1])
        early += try barrier(c, id: "b2")
        // ...and the next keystroke supersedes it while the probe is still out.
        try c.send(["id": "k2", "query": "x", "indices": ["flaky"], "session": "s", "seq": 2])
        let k2 = try collect(c, id: "k2", already: early)
        let sources = try #require(k2.last?.doneValue, "no done for k2: \(k2)").sources
        #expect(sources.map(\.report.status) == [.skipped], "k2 must not probe while \"probe\" does: \(sources)")
    }

    @Test func sessionNeedsSeq() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "a", "query": "x", "session": "t"])
        #expect(errorCode(frames.first) == "missing_field")
    }

    @Test func oneIndexUnderTwoNamesWithItsOwnDeadlines() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("slow", FaultConfigs.source(delayMs: 300, hits: 2))
            ]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip([
            "id": "t", "query": "x",
            "indices": [["index": "slow", "as": "patient"], ["index": "slow", "as": "hasty", "timeoutMs": 50]],
        ])
        let (status, sources) = try #require(frames.last?.doneValue, "no done")
        #expect(status == .partial)
        #expect(sources.map(\.name) == ["patient", "hasty"])
        #expect(sources.map(\.report.status) == [.ok, .timeout])
        #expect(frames.contains { if case .results(_, "patient", _) = $0 { return true } else { return false } })
    }

    @Test func duplicateSourceNamesAreRefused() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "t", "query": "x", "indices": ["s", ["index": "s"]]])
        #expect(errorCode(frames.first) == "invalid_field")
        if case .error(_, _, let e)? = frames.first { #expect(e.message.contains("indices[1]")) }
    }
}
