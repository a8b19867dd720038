import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// Graceful stop, reload (SIGHUP and the `reload` op), and the admin check.
@Suite(.serialized)
struct LifecycleTests {
    @Test func sigtermLetsRunningQueriesFinishThenExitsZero() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("slow", FaultConfigs.source(delayMs: 500))
            ]))
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "q", "query": "x"])
        // Once the ping after it is answered, the search is running (not a sleep that guesses).
        let early = try barrier(c)
        d.signal(SIGTERM)
        let frames = try collect(c, id: "q", already: early)
        #expect(frames.map(\.type) == ["results", "merged", "done"])
        #expect(d.waitForExit(seconds: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: d.socketPath))
    }

    /// Idle clients do not hold the drain up one after another: 20 of them are let go together
    /// (each lingers at most a second), well inside a drain timeout that waiting for them in
    /// turn would pass; a client that connects during the drain is told why it is refused.
    @Test func idleClientsAreLetGoTogetherAndLateOnesAreAnswered() throws {
        var config = FaultConfigs.config([("s", FaultConfigs.source())])
        config["drainTimeoutMs"] = 15_000
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        var idle: [SocketConnection] = []
        for _ in 0..<20 { idle.append(try d.connect()) }
        for c in idle { _ = try barrier(c) }  // every one is accepted and served
        d.signal(SIGTERM)
        // A connection accepted before the loop saw the signal is answered as usual; once it
        // has, a new one gets `shutting_down` (the idle ones keep the drain open meanwhile).
        var refused: Frame?
        let answered = poll(seconds: 5) {
            guard let c = try? d.connect(timeoutSeconds: 5), (try? c.send(["id": "late", "op": "ping"])) != nil,
                let frame = try? c.readFrame()
            else { return false }
            if errorCode(frame) == "shutting_down" { refused = frame }
            return refused != nil
        }
        #expect(answered, "no connection made during the drain was refused with shutting_down")
        if case .error(_, _, let e)? = refused { #expect(e.message.contains("stopping")) }
        #expect(d.waitForExit(seconds: 30) == 0)
        let log = String(decoding: d.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!log.contains("drain timeout"), "\(log)")
    }

    /// The listening socket keeps the backlog the daemon asks for (511), not libevent's 128.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ss"), "needs ss (iproute2)"))
    func theListenBacklogIsTheOneAskedFor() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let r = try runProgram(URL(fileURLWithPath: "/usr/bin/ss"), ["-xlnH", "src", d.socketPath])
        // State, Recv-Q, Send-Q (the backlog), then the path.
        let fields = r.out.split(whereSeparator: { $0 == " " || $0 == "\n" })
        #expect(fields.count >= 4 && fields[3] == "511", "\(r.out)")
    }

    /// The polling loop (`busyPollMicros`) serves, times out sources, drains and stops like
    /// the sleeping one.
    @Test func busyPollingLoopServesDrainsAndStops() throws {
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 300)), ("fast", FaultConfigs.source(delayMs: 0))])
        config["busyPollMicros"] = 200
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        for i in 0..<20 {
            let frames = try c.roundTrip(["id": .string("f\(i)"), "query": "x", "indices": ["fast"]])
            #expect(frames.map(\.type) == ["results", "merged", "done"])
        }
        // `stats.polling`: the policy starts on, so the first wake-up polled, and every idle
        // window taken since has ended as caught or missed.
        let statsFrames = try c.roundTrip(["id": "s", "op": "stats"])
        let polling = try #require(statsFrames.first?.infoPayload("stats")?["polling"]?.objectValue, "no stats.polling")
        #expect(polling["busyPollMicros"] == 200)
        #expect((polling["windows"]?.intValue ?? 0) >= 1)
        #expect((polling["idleCaught"]?.intValue ?? 0) + (polling["idleMissed"]?.intValue ?? 0) >= 1)
        #expect(polling["on"]?.boolValue != nil)
        try c.send(["id": "q", "query": "x"])
        let early = try barrier(c)
        d.signal(SIGTERM)
        #expect(try collect(c, id: "q", already: early).last?.type == "done")
        #expect(d.waitForExit(seconds: 10) == 0)
        var bad = FaultConfigs.config([("fast", FaultConfigs.source(delayMs: 0))])
        bad["busyPollMicros"] = -1
        let refused = try DaemonProcess(binary: "fedsearchd-faults", config: bad, waitForReady: false)
        #expect(refused.waitForExit(seconds: 10) != 0)
        let err = String(decoding: refused.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(err.contains("busyPollMicros"), "\(err)")
    }

    @Test func secondSignalStopsAtOnce() throws {
        // The daemon's sd_notify messages tell when it has handled the first signal.
        let notify = try SystemdTests.NotifyListener()
        // Neither the search nor the drain timeout would end the daemon within the wait below.
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 60_000))], defaultTimeoutMs: 120_000)
        config["drainTimeoutMs"] = 120_000
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config, environment: ["NOTIFY_SOCKET": notify.path])
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "q", "query": "x"])
        _ = try barrier(c)  // the search is running
        d.signal(SIGTERM)
        // Two signals sent back to back may be delivered as one: wait until the first was
        // handled (the drain began) before sending the second.
        let stopping = notify.receive(until: "STOPPING=1", seconds: 60)
        #expect(stopping.contains { $0.contains("STOPPING=1") }, "\(stopping)")
        usleep(100_000)  // time to exit if the first signal did not wait
        #expect(d.process.isRunning, "the first signal waits for the running query")
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 20) == 0)
        withExtendedLifetime(c) {}  // the client stayed connected throughout
    }

    @Test func drainTimeoutBoundsTheWait() throws {
        var config = FaultConfigs.config([("slow", FaultConfigs.source(delayMs: 30_000))], defaultTimeoutMs: 60_000)
        config["drainTimeoutMs"] = 200
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        // The client stays connected (one that hangs up has its search cancelled, and the
        // drain would have nothing to wait for), and the search is running before the signal.
        let c = try d.connect()
        try c.send(["id": "q", "query": "x"])
        _ = try barrier(c)
        d.signal(SIGINT)
        // Well under the search's 30 s: the 200 ms drain timeout ended the wait.
        #expect(d.waitForExit(seconds: 10) == 0)
        withExtendedLifetime(c) {}  // the client stayed connected throughout
    }

    @Test func sighupReloadsAddsAndKeepsIndices() throws {
        let first = FaultConfigs.config([("a", FaultConfigs.source())])
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: first)
        defer { d.stop() }
        try d.rewriteConfig(FaultConfigs.config([("a", FaultConfigs.source()), ("b", FaultConfigs.source(hits: 1))]))
        d.signal(SIGHUP)
        var names: [String] = []
        _ = try poll(seconds: 60) {
            guard case .info(_, _, let p)? = try d.connect().roundTrip(["id": "i", "op": "indices"]).first else { return true }
            names = (p["indices"]?.arrayValue ?? []).compactMap { $0.objectValue?["name"]?.stringValue }
            return names == ["a", "b"]
        }
        #expect(names == ["a", "b"])
    }

    @Test func reloadOpReportsWhatChangedAndBadConfigKeepsTheOldOne() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: FaultConfigs.config([
                ("a", FaultConfigs.source()), ("b", FaultConfigs.source()),
            ]))
        defer { d.stop() }
        let c = try d.connect()
        try d.rewriteConfig(FaultConfigs.config([("a", FaultConfigs.source()), ("c", FaultConfigs.source())]))
        let frames = try c.roundTrip(["id": "r", "op": "reload"])
        let p = try #require(frames.first?.infoPayload("reload"), "\(frames)")
        #expect(p["kept"] == ["a"])
        #expect(p["rebuilt"] == ["c"])
        #expect(p["removed"] == ["b"])
        // A broken config: the error names the field, and the daemon keeps serving a and c.
        try "{\"searchables\": {\"a\": {\"backend\": \"test.fault\", \"dleayMs\": 1}}}"
            .write(toFile: d.configPath, atomically: true, encoding: .utf8)
        let bad = try c.roundTrip(["id": "r2", "op": "reload"])
        let e = try #require(bad.first?.requestError, "\(bad)")
        #expect(e.code == .reloadFailed)
        #expect(e.message.contains("searchables.a.dleayMs"))
        let after = try c.roundTrip(["id": "q", "query": "x"])
        let (status, sources) = try #require(after.last?.doneValue, "\(after)")
        try #require(status == .ok, "\(after)")
        #expect(sources.map(\.name) == ["a", "c"])
    }

    @Test func reloadUnderContinuousLoadDropsNoQuery() throws {
        let config = FaultConfigs.config([("a", FaultConfigs.source(delayMs: 2)), ("b", FaultConfigs.source())])
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        var failures: [String] = []
        for i in 0..<150 {
            if i % 30 == 10 {
                // Alternate between two configs so each reload changes something.
                let b: JSONValue = i % 60 == 10 ? FaultConfigs.source(hits: 2) : FaultConfigs.source(hits: 4)
                try d.rewriteConfig(FaultConfigs.config([("a", FaultConfigs.source(delayMs: 2)), ("b", b)]))
                d.signal(SIGHUP)
            }
            let frames = try c.roundTrip(["id": .string("q\(i)"), "query": "x", "indices": ["a", "b"]])
            guard case .done(_, .ok, _, _)? = frames.last else {
                failures.append("q\(i): \(frames.map(\.type))")
                continue
            }
        }
        #expect(failures.isEmpty)
    }
}
