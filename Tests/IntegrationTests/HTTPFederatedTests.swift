import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The socket's federated search over HTTP: one JSON document, or the same frames as
/// server-sent events as each source answers; sessions supersede across connections.
@Suite(.serialized)
struct HTTPFederatedTests {
    static func daemon(_ sources: [(String, JSONValue)]) throws -> DaemonProcess {
        var config = FaultConfigs.config(sources)
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        return try DaemonProcess(binary: "fedsearchd-faults", config: config)
    }

    @Test func theStreamSendsEachSourceAsItAnswersThenMergedThenDone() throws {
        let d = try Self.daemon([("slow", FaultConfigs.source(delayMs: 600, score: 0.9)), ("fast", FaultConfigs.source(score: 0.1))])
        defer { d.stop() }
        let http = try d.http()
        try http.send(
            "POST", "/1/federated/stream", body: JSONWriter.string(["id": "q1", "query": "x", "indices": ["slow", "fast"]]),
            headers: ["Content-Type": "text/plain"])
        let head = try http.readHead()
        #expect(head.status == 200)
        #expect(head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        let events = try http.readEvents()
        let kinds = events.map { "\($0["type"]?.stringValue ?? "?"):\($0["index"]?.stringValue ?? "")" }
        #expect(kinds == ["results:fast", "results:slow", "merged:", "done:"])
        #expect(events.allSatisfy { $0["id"] == "q1" })
        #expect(events.last?["status"] == "ok")
        // The merged list puts the slow source's better hits first.
        #expect(events[2]["hits"]?.arrayValue?.first?.objectValue?["_index"] == "slow")
        // The connection serves the next request.
        #expect(try http.request("POST", "/1/indexes/fast/query", json: ["query": "y"]).status == 200)
    }

    /// A request that fails as a whole gets its HTTP status and Algolia's error shape from the
    /// stream as from the document, not 200 and an event stream with no `done`.
    @Test func theStreamAnswersARefusedRequestWithItsStatus() throws {
        let d = try Self.daemon([("fast", FaultConfigs.source())])
        defer { d.stop() }
        let http = try d.http()
        for target in ["/1/federated/stream", "/1/federated"] {
            let unknown = try http.request("POST", target, json: ["query": "x", "indices": ["fast", "nope"]])
            #expect(unknown.status == 404, "\(target): \(unknown.text)")
            #expect(unknown.json["code"] == "unknown_index")
            #expect(unknown.json["status"] == 404)
            #expect(unknown.json["message"]?.stringValue?.contains("nope") == true)
            let badFilter = try http.request("POST", target, json: ["query": "x", "indices": ["fast"], "params": ["filters": "a:"]])
            #expect(badFilter.status == 400, "\(target): \(badFilter.text)")
            #expect(badFilter.json["code"] == "invalid_filter")
        }
        // The connection serves the next stream.
        try http.send("POST", "/1/federated/stream", body: JSONWriter.string(["query": "x", "indices": ["fast"]]))
        #expect(try http.readHead().status == 200)
        #expect(try http.readEvents().last?["type"] == "done")
    }

    @Test func theDocumentHoldsEverySourcesAnswerAndErrors() throws {
        let d = try Self.daemon([("good", FaultConfigs.source()), ("bad", FaultConfigs.source(mode: "fail"))])
        defer { d.stop() }
        let r = try d.http().request("POST", "/1/federated", json: ["query": "x", "indices": ["good", "bad"]])
        #expect(r.status == 200)
        #expect(r.json["results"]?.objectValue?.keys == ["good"])
        #expect(r.json["results"]?.objectValue?["good"]?.objectValue?["nbHits"] == 3)
        #expect(r.json["errors"]?.objectValue?["bad"]?.objectValue?["code"] == "backend_error")
        #expect(r.json["merged"]?.objectValue?["nbHits"] == 3)
        #expect(r.json["status"] == "partial")
        #expect(r.json["sources"]?.objectValue?["bad"]?.objectValue?["status"] == "error")
        // A bad request is refused whole, naming the field.
        let bad = try d.http().request("POST", "/1/federated", json: ["query": "x", "indices": ["good"], "merge": ["strategy": "loud"]])
        #expect(bad.status == 400)
        #expect(bad.json["message"]?.stringValue?.contains("merge") == true, "\(bad.text)")
        let unknown = try d.http().request("POST", "/1/federated", json: ["query": "x", "typo": 1])
        #expect(unknown.status == 400)
        #expect(unknown.json["code"] == "unknown_field")
    }

    /// Sessions are a client's own: a request from another address with the same session name
    /// and a far higher seq supersedes nothing of it, and a seq that jumps past 2^40 over the
    /// session's latest is refused.
    @Test func anotherClientCannotPoisonASession() throws {
        let d = try Self.daemon([("fast", FaultConfigs.source())])
        defer { d.stop() }
        let body = { (seq: Double) in
            JSONWriter.string(["query": "s", "indices": ["fast"], "session": "checkout-page", "seq": .number(seq)])
        }
        let poisoner = try HTTPTestClient(port: d.httpPort, from: "127.0.0.2")
        #expect(try poisoner.request("POST", "/1/federated", body: body(4e15)).json["status"] == "ok")
        let victim = try d.http()
        for seq in [1.0, 2.0] {
            let r = try victim.request("POST", "/1/federated", body: body(seq))
            #expect(r.json["status"] == "ok", "seq \(seq): \(r.text)")
        }
        let jump = try victim.request("POST", "/1/federated", body: body(4e15))
        #expect(jump.status == 400 && jump.json["code"] == "invalid_field", "\(jump.text)")
        #expect(try victim.request("POST", "/1/federated", body: body(3)).json["status"] == "ok")
    }

    /// At the connection limits, the oldest idle keep-alive connection makes room (of the same
    /// address for `maxConnectionsPerAddress`, of any for `maxConnections`); only when none is
    /// idle is a new one refused. One client's parked keep-alive connections cannot lock
    /// every other client out.
    @Test func idleKeepAliveConnectionsMakeRoomAtTheLimits() throws {
        var config = FaultConfigs.config([("fast", FaultConfigs.source()), ("slow", FaultConfigs.source(delayMs: 3000))])
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        config["limits"] = ["maxConnections": 4, "maxConnectionsPerAddress": 3]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        func served(_ c: HTTPTestClient) throws -> Int { try c.request("POST", "/1/indexes/fast/query", json: ["query": "x"]).status }
        // Three idle keep-alive connections from one address; a fourth closes the oldest.
        let mine = try (0..<3).map { _ in try d.http() }
        for c in mine { #expect(try served(c) == 200) }
        let fourth = try d.http()
        #expect(try served(fourth) == 200)
        #expect(mine[0].serverClosed(), "the oldest idle connection of the address made room")
        #expect(try served(mine[1]) == 200)
        // Another address at the daemon-wide limit: the oldest idle connection of any makes room.
        let other = try HTTPTestClient(port: d.httpPort, from: "127.0.0.2")
        #expect(try served(other) == 200)
        let another = try HTTPTestClient(port: d.httpPort, from: "127.0.0.2")
        #expect(try served(another) == 200)
        // None idle: every connection of the address busy with a slow search, one more is refused.
        let busy = try (0..<3).map { _ in try d.http() }
        for c in busy { try c.send("POST", "/1/indexes/slow/query", body: "{\"query\": \"x\"}") }
        try waitForStats(d.connect(), "the three slow requests read and in flight") {
            $0["http"]?.objectValue?["requests"]?.intValue == 3
        }
        let refused = try d.http().request("POST", "/1/indexes/fast/query", json: ["query": "x"])
        #expect(refused.status == 503, "\(refused.text)")
        #expect(refused.json["code"] == "too_many_connections")
        #expect(refused.json["message"]?.stringValue?.contains("127.0.0.1") == true, "\(refused.text)")
        for c in busy { #expect(try c.readResponse().status == 200) }
    }

    /// A connection counts from its accept, not from its first request: connections that
    /// send nothing take their address's slots like any other (the oldest silent one makes
    /// room), so a flood of them holds at most `maxConnectionsPerAddress` descriptors, and a
    /// request from that address still gets in.
    @Test func silentConnectionsCountFromTheirAccept() throws {
        var config = FaultConfigs.config([("fast", FaultConfigs.source())])
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        config["limits"] = ["maxConnections": 8, "maxConnectionsPerAddress": 3]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let silent = try (0..<6).map { _ in try d.http() }
        let c = try d.connect()
        let stats = try pollStats(c) { $0["http"]?.objectValue?["connections"]?.intValue == 3 }
        #expect(stats?["http"]?.objectValue?["connections"] == 3, "\(String(describing: stats?["http"]))")
        for s in silent.prefix(3) { #expect(s.serverCloses(within: 5), "the oldest silent connections made room") }
        for s in silent.suffix(3) { #expect(!s.serverCloses(within: 0.2), "the three newest are kept") }
        let r = try d.http().request("POST", "/1/indexes/fast/query", json: ["query": "x"])
        #expect(r.status == 200, "\(r.text)")
    }

    /// A request must arrive whole within `limits.requestReadTimeoutMs` of its first byte (of
    /// the connection's opening, for its first), however steadily its bytes trickle in.
    @Test func aRequestThatTricklesInIsCutAtItsDeadline() throws {
        var config = FaultConfigs.config([("fast", FaultConfigs.source())])
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        config["limits"] = ["requestReadTimeoutMs": 1500]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let silent = try d.http()
        let trickle = try d.http()
        // A keep-alive connection that was served, then trickles its next request.
        let served = try d.http()
        #expect(try served.request("POST", "/1/indexes/fast/query", json: ["query": "x"]).status == 200)
        let start = Date()
        try trickle.sendRaw("POST /1/indexes/fast/query HTTP/1.1\r\n")
        try served.sendRaw("POST /1/indexes/fast/query HTTP/1.1\r\n")
        var cut = false
        while Date().timeIntervalSince(start) < 6 {
            guard (try? trickle.sendRaw("X-Slow: a\r\n")) != nil, (try? served.sendRaw("X-Slow: a\r\n")) != nil else {
                cut = true
                break
            }
            usleep(250_000)
        }
        #expect(cut || (trickle.serverCloses(within: 1) && served.serverCloses(within: 1)), "both trickling requests were cut")
        #expect(Date().timeIntervalSince(start) < 5, "within the deadline and a second")
        #expect(silent.serverCloses(within: 1), "a connection that sent nothing is closed too")
        #expect(try d.http().request("POST", "/1/indexes/fast/query", json: ["query": "x"]).status == 200)
    }

    @Test func aNewerKeystrokeOfTheSessionSupersedesTheRunningOne() throws {
        let d = try Self.daemon([("slow", FaultConfigs.source(delayMs: 5000)), ("fast", FaultConfigs.source())])
        defer { d.stop() }
        let first = try d.http()
        try first.send(
            "POST", "/1/federated/stream",
            body: JSONWriter.string([
                "query": "s", "indices": ["fast", "slow"], "session": "tab-1", "seq": 1,
            ]))
        _ = try first.readHead()
        var seen: [JSONObject] = []
        _ = try first.readEvents { event in
            seen.append(event)
            return false  // the fast source's answer: the slow one is still running
        }
        #expect(seen.first?["index"] == "fast")
        // The next keystroke, on another connection (as a browser's fetch may be).
        let second = try d.http().request(
            "POST", "/1/federated",
            json: [
                "query": "st", "indices": ["fast"], "session": "tab-1", "seq": 2,
            ])
        #expect(second.json["status"] == "ok")
        let rest = try first.readEvents()
        #expect(rest.map { $0["type"]?.stringValue ?? "" } == ["done"])
        #expect(rest.last?["status"] == "superseded")
        // A keystroke older than the latest is superseded at once.
        let stale = try d.http().request(
            "POST", "/1/federated",
            json: [
                "query": "s", "indices": ["fast"], "session": "tab-1", "seq": 1,
            ])
        #expect(stale.json["status"] == "superseded")
        #expect(stale.json["results"]?.objectValue?.isEmpty == true)
    }

    @Test(arguments: [(true, false), (false, false), (false, true)])
    func aClientThatGoesAwayHasItsSearchCancelled(streaming: Bool, reset: Bool) throws {
        let d = try Self.daemon([("slow", FaultConfigs.source(delayMs: 1500)), ("fast", FaultConfigs.source())])
        defer { d.stop() }
        let http = try d.http()
        let body = JSONWriter.string(["query": "s", "indices": ["fast", "slow"]])
        if streaming {
            try http.send("POST", "/1/federated/stream", body: body)
            _ = try http.readHead()
            _ = try http.readEvents { _ in false }
        } else {
            // Answered whole: nothing is written before the slow source answers.
            try http.send("POST", "/1/federated", body: body)
            // The search runs: its fast source has answered (a latency sample), the slow one not yet.
            try waitForStats(d.connect(), "the search running, its fast source answered") {
                $0["latency"]?.objectValue?["fast"] != nil
            }
        }
        if reset { http.reset() } else { http.hangUp() }
        // The request ends (cancelled) and the slow source never records an answer.
        let c = try d.connect()
        let stats = try pollStats(c, seconds: 10) { s in s["queriesServed"]?.intValue == 1 }
        #expect(stats?["queriesFailed"] == 1, "a cancelled request counts as not ok")
        usleep(2_000_000)  // past the slow source's 1.5 s: a sample it recorded would show now
        let after = try pollStats(c, seconds: 1) { _ in true }
        #expect(after?["latency"]?.objectValue?["slow"] == nil, "the slow source was cancelled before it answered")
        #expect(after?["latency"]?.objectValue?["fast"] != nil)
    }

    @Test func aDrainLetsARunningStreamFinish() throws {
        let d = try Self.daemon([("slow", FaultConfigs.source(delayMs: 800))])
        defer { d.stop() }
        let http = try d.http()
        try http.send("POST", "/1/federated/stream", body: JSONWriter.string(["query": "s", "indices": ["slow"]]))
        _ = try http.readHead()
        d.signal(SIGTERM)
        let events = try http.readEvents()
        #expect(events.last?["type"] == "done")
        #expect(events.last?["status"] == "ok")
        #expect(d.waitForExit(seconds: 10) == 0)
    }
}
