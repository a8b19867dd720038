import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Fan-out, deadlines, cancellation and pipelining, over the real socket of the real daemon
/// (the fault-injecting build, whose test searchables are slow or failing on purpose).
@Suite(.serialized)
struct FederationOverSocketTests {
    @Test func fastSourceStreamsBeforeSlowOneAndMergedComesLast() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("fast", FaultConfigs.source(hits: 2, score: 0.4)),
                // Slow by far more than a loaded machine delays the fast one.
                ("slow", FaultConfigs.source(delayMs: 1500, hits: 2, score: 0.9)),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip(["id": "q1", "query": "x", "indices": ["slow", "fast"]])
        #expect(frames.map(\.type) == ["results", "results", "merged", "done"])
        try #require(frames.count == 4)
        let first = try #require(frames[0].resultsIndex, "unexpected frames \(frames)")
        let merged = try #require(frames[2].mergedValue, "unexpected frames \(frames)")
        let (status, sources) = try #require(frames[3].doneValue, "unexpected frames \(frames)")
        #expect(first == "fast")
        // Merged by _rankingScore: the slow source's 0.9 hits first.
        #expect(merged.hits.map(\.index) == ["slow", "slow", "fast", "fast"])
        #expect(merged.nbHits == 4)
        #expect(status == .ok)
        #expect(sources.map(\.name) == ["slow", "fast"])
        #expect(sources.allSatisfy { $0.report.status == .ok })
    }

    @Test func equalScoresTieByRequestOrder() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("a", FaultConfigs.source(hits: 1, score: 0.5)), ("b", FaultConfigs.source(hits: 1, score: 0.5)),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        for order in [["a", "b"], ["b", "a"]] {
            let frames = try c.roundTrip(["id": "t", "query": "x", "indices": .array(order.map { .string($0) })])
            let m = try #require(frames.first(where: { $0.type == "merged" })?.mergedValue, "no merged frame")
            #expect(m.hits.map(\.index) == order)
        }
    }

    @Test func slowSourceTimesOutWhileOthersResultsStand() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("fast", FaultConfigs.source()), ("slow", FaultConfigs.source(delayMs: 10_000)),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        let started = Date()
        // A deadline the fast source meets even on a loaded machine; the slow one takes 10 s.
        let frames = try c.roundTrip(["id": "q", "query": "x", "timeoutMs": 2000])
        #expect(Date().timeIntervalSince(started) < 8, "the request must not wait for the slow source")
        #expect(frames.map(\.type) == ["results", "error", "merged", "done"])
        try #require(frames.count == 4)
        let (index, e) = try #require(frames[1].errorValue, "unexpected frames \(frames)")
        let (status, sources) = try #require(frames[3].doneValue, "unexpected frames \(frames)")
        #expect(index == "slow")
        #expect(e.code == .timeout)
        #expect(status == .partial)
        #expect(sources.first { $0.name == "slow" }?.report.status == .timeout)
        #expect(sources.first { $0.name == "fast" }?.report.status == .ok)
    }

    @Test func sourceThatIgnoresCancellationStillMeetsTheDeadline() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("fast", FaultConfigs.source()), ("stuck", FaultConfigs.source(mode: "hang")),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        let started = Date()
        // A deadline the fast source meets even on a loaded machine; the stuck one hangs 60 s.
        let frames = try c.roundTrip(["id": "q", "query": "x", "timeoutMs": 2000])
        #expect(Date().timeIntervalSince(started) < 10)
        let (status, sources) = try #require(frames.last?.doneValue, "no done")
        #expect(status == .partial)
        #expect(sources.first { $0.name == "stuck" }?.report.status == .timeout)
    }

    @Test func failingSourceIsReportedAndOthersStand() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("ok", FaultConfigs.source()), ("broken", FaultConfigs.source(mode: "fail")),
            ]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "q", "query": "x"])
        let errors = frames.compactMap { f -> SearchError? in
            if case .error(_, "broken"?, let e) = f { return e }
            return nil
        }
        #expect(errors.map(\.code) == [.backendError])
        let (status, sources) = try #require(frames.last?.doneValue, "no done")
        #expect(status == .partial)
        #expect(sources.first { $0.name == "broken" }?.report.errorCode == .backendError)
    }

    @Test func pipelinedRequestsInterleaveByID() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("slow", FaultConfigs.source(delayMs: 1500)), ("fast", FaultConfigs.source()),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "A", "query": "x", "indices": ["slow"]])
        try c.send(["id": "B", "query": "y", "indices": ["fast"]])
        try c.send(["id": "P", "op": "ping"])
        var order: [String] = []
        var doneA = false
        while !doneA, let f = try c.readFrame() {
            order.append("\(f.id ?? "-"):\(f.type)")
            if f.id == "A", f.type == "done" { doneA = true }
        }
        // B and the ping finish while A's slow source is still working.
        let aResults = try #require(order.firstIndex(of: "A:results"), "\(order)")
        #expect(try #require(order.firstIndex(of: "B:done"), "\(order)") < aResults)
        #expect(try #require(order.firstIndex(of: "P:pong"), "\(order)") < aResults)
        #expect(order.filter { $0.hasPrefix("A:") } == ["A:results", "A:merged", "A:done"])
        #expect(order.filter { $0.hasPrefix("B:") } == ["B:results", "B:merged", "B:done"])
    }

    @Test func cancelStopsARunningQuery() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config(
                [
                    ("slow", FaultConfigs.source(delayMs: 20_000))
                ], defaultTimeoutMs: 60_000))
        defer { d.stop() }
        let c = try d.connect()
        let started = Date()
        try c.send(["id": "long", "query": "x"])
        var frames = try barrier(c)  // once the pong is back, the search runs
        try c.send(["id": "c", "op": "cancel", "target": "long"])
        while let f = try c.readFrame() {
            frames.append(f)
            if f.id == "long", f.type == "done" { break }
        }
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(frames.contains { if case .cancelAccepted(_, "long") = $0 { return true } else { return false } })
        let (status, sources) = try #require(frames.last?.doneValue, "no done")
        #expect(status == .cancelled)
        #expect(sources.first?.report.status == .cancelled)
        // The connection still works, and the id is free again.
        #expect(try c.roundTrip(["id": "long", "op": "ping"]).first?.type == "pong")
    }

    @Test func cancelOfUnknownRequestIsAnError() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "c", "op": "cancel", "target": "nope"])
        #expect(errorCode(frames.first) == "unknown_request")
    }

    @Test func duplicateIDWhileRunningIsRefused() throws {
        // The first search runs far longer than the second takes to arrive; the stop at the end
        // does not wait for it.
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 30_000))], defaultTimeoutMs: 60_000)
        config["drainTimeoutMs"] = 100
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "same", "query": "x"])
        try c.send(["id": "same", "query": "y"])
        let first = try c.readFrame()
        #expect(errorCode(first) == "duplicate_id")
    }

    @Test func clientThatDisconnectsMidQueryLeavesDaemonHealthy() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config(
                [
                    ("slow", FaultConfigs.source(delayMs: 30_000)), ("fast", FaultConfigs.source()),
                ], defaultTimeoutMs: 60_000))
        defer { d.stop() }
        for _ in 0..<5 {
            let c = try d.connect()
            try c.send(["id": "gone", "query": "x"])
        }
        let c = try d.connect()
        #expect(try c.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        // The hang-ups are seen and the cancelled searches counted asynchronously: wait for it
        // (the slow source alone would take 30 s, the request's deadline 60 s).
        let payload = try #require(
            try pollStats(c) {
                $0["connections"]?.intValue == 1 && $0["queriesServed"]?.intValue == 5 && $0["queriesFailed"]?.intValue == 5
            }, "no stats")
        #expect(payload["connections"]?.intValue == 1)
        // The five searches ended (cancelled) well before their slow source's 30 s.
        #expect(payload["queriesServed"]?.intValue == 5)
        #expect(payload["queriesFailed"]?.intValue == 5)
        #expect(d.process.isRunning)
    }

    @Test func halfClosedClientStillGetsItsAnswer() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("slow", FaultConfigs.source(delayMs: 200))
            ]))
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "h", "query": "x"])
        c.finishSending()
        let frames = try collect(c, id: "h")
        #expect(frames.map(\.type) == ["results", "merged", "done"])
        #expect(try c.readLine() == nil, "the daemon closes once the answer is sent")
    }
}
