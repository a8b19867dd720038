import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Each configurable limit, exercised over the socket.
@Suite(.serialized)
struct LimitTests {
    func daemon(limits: JSONObject, delayMs: Int = 0, hits: Int = 3) throws -> DaemonProcess {
        var config = FaultConfigs.config([("s", FaultConfigs.source(delayMs: delayMs, hits: hits))])
        config["limits"] = .object(limits)
        return try DaemonProcess(binary: "fedsearchd-faults", config: config)
    }

    @Test func connectionsOverTheLimitAreRefusedWithAnError() throws {
        let d = try daemon(limits: ["maxConnections": 2])
        defer { d.stop() }
        usleep(100_000)  // let the daemon see the readiness probe's connection close
        let a = try d.connect()
        let b = try d.connect()
        #expect(try a.roundTrip(["id": "1", "op": "ping"]).first?.type == "pong")
        #expect(try b.roundTrip(["id": "2", "op": "ping"]).first?.type == "pong")
        let c = try d.connect()
        #expect(errorCode(try c.readFrame()) == "too_many_connections")
        #expect(try c.readLine() == nil)
        // Once one closes, a new client gets in.
        _ = consume a
        usleep(100_000)
        #expect(try d.connect().roundTrip(["id": "3", "op": "ping"]).first?.type == "pong")
    }

    @Test func requestsInFlightPerConnectionAreBounded() throws {
        let d = try daemon(limits: ["maxRequestsPerConnection": 2], delayMs: 300)
        defer { d.stop() }
        let c = try d.connect()
        for i in 0..<3 { try c.send(["id": .string("r\(i)"), "query": "x"]) }
        let first = try c.readFrame()
        #expect(first?.id == "r2")
        #expect(errorCode(first) == "too_many_requests")
        // The two admitted requests complete normally.
        #expect(try collect(c, id: "r0").last?.type == "done")
    }

    @Test func searchesRunningInTheWholeDaemonAreBounded() throws {
        let d = try daemon(limits: ["maxRunningSearches": 2], delayMs: 400)
        defer { d.stop() }
        let a = try d.connect()
        let b = try d.connect()
        let c = try d.connect()
        try a.send(["id": "a", "query": "x"])
        try b.send(["id": "b", "query": "x"])
        usleep(100_000)
        let refused = try c.roundTrip(["id": "c", "query": "x"])
        #expect(errorCode(refused.first) == "too_many_requests")
        #expect(try collect(a, id: "a").last?.type == "done")
        #expect(try collect(b, id: "b").last?.type == "done")
        // Capacity is back once they end.
        #expect(try c.roundTrip(["id": "c2", "query": "x"]).last?.type == "done")
    }

    @Test func idleConnectionsAreClosedButWaitingOnesAreNot() throws {
        let d = try daemon(limits: ["idleTimeoutMs": 200], delayMs: 500)
        defer { d.stop() }
        let idle = try d.connect()
        let waiting = try d.connect()
        try waiting.send(["id": "w", "query": "x"])
        usleep(350_000)
        #expect(try idle.readLine() == nil, "idle connection closed")
        #expect(try collect(waiting, id: "w").last?.type == "done", "a connection waiting for its answer stays")
    }

    @Test func clientThatNeverReadsIsStoppedAndDisconnected() throws {
        let d = try daemon(limits: ["maxPendingOutputBytes": 8192], hits: 200)
        defer { d.stop() }
        let c = try d.connect()
        // Flood requests without reading a byte of the answers.
        var sent = 0
        let line = Array((JSONWriter.string(["query": "x", "params": ["hitsPerPage": 200]]) + "\n").utf8)
        let flood = Array([[UInt8]](repeating: line, count: 200).joined())
        while sent < 50, (try? c.sendRaw(flood)) != nil { sent += 1 }
        usleep(300_000)
        // The daemon is healthy, and that client was cut off (its stream ends).
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        var ended = false
        for _ in 0..<100_000 {
            guard let l = try? c.readLine() else { ended = true; break }
            if l.isEmpty { continue }
        }
        #expect(ended)
        #expect(d.process.isRunning)
    }

    @Test func limitsAreValidatedInTheConfig() throws {
        let dir = try DaemonProcess.makeDirectory()
        let path = dir.appendingPathComponent("c.json").path
        try #"{"limits": {"maxConections": 5}, "searchables": {"s": {"backend": "test.fault"}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try runBuilt("fedsearchd-faults", ["--check-config", path])
        #expect(r.status == 1)
        #expect(r.err.contains("limits.maxConections"))
    }
}
