import DaemonTestSupport
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
        // The readiness probe's connection may still be open in the daemon (it sees the close
        // asynchronously), and then a is the second one: wait until a is the only one.
        let a = try d.connect()
        let alone = try #require(try pollStats(a) { $0["connections"]?.intValue == 1 }, "no stats")
        #expect(alone["connections"]?.intValue == 1, "the readiness probe's connection was closed")
        let b = try d.connect()
        #expect(try a.roundTrip(["id": "1", "op": "ping"]).first?.type == "pong")
        #expect(try b.roundTrip(["id": "2", "op": "ping"]).first?.type == "pong")
        let c = try d.connect()
        #expect(errorCode(try c.readFrame()) == "too_many_connections")
        #expect(try c.readLine() == nil)
        // Once one closes, a new client gets in (once the daemon has seen the close: a new
        // client until then is refused, so retry, with a deadline).
        _ = consume a
        var answer: Frame?
        _ = poll(seconds: 10) {
            // A refused client may find the daemon gone from its socket already: no throw.
            guard let n = try? d.connect() else { return false }
            try? n.send(["id": "3", "op": "ping"])
            answer = try? n.readFrame()
            return answer.map { errorCode($0) != "too_many_connections" } ?? false
        }
        #expect(answer?.type == "pong", "\(String(describing: answer))")
    }

    /// Past `maxRequestsPerConnection` in flight, a further search waits, unread, until one
    /// ends (the daemon reads no more of the connection's lines meanwhile), instead of being
    /// refused; requests of other kinds sent before it are answered while the searches run.
    @Test func requestsPastTheConnectionLimitWaitTheirTurn() throws {
        // The first two still run when the rest is read: sent in one write (read in one go),
        // and slow by far more than a loaded machine delays the reading.
        let d = try daemon(limits: ["maxRequestsPerConnection": 2], delayMs: 1000)
        defer { d.stop() }
        let c = try d.connect()
        var lines: [UInt8] = []
        for i in 0..<2 { lines += JSONWriter.bytes(["id": .string("r\(i)"), "query": "x"]) + [0x0A] }
        lines += JSONWriter.bytes(["id": "p1", "op": "ping"]) + [0x0A]
        lines += JSONWriter.bytes(["id": "r2", "query": "x"]) + [0x0A]
        lines += JSONWriter.bytes(["id": "p2", "op": "ping"]) + [0x0A]
        try c.sendRaw(lines)
        var order: [String] = []
        while order.count < 5, let frame = try c.readFrame() {
            #expect(errorCode(frame) == nil, "\(frame)")
            if case .done(let id?, _, _, _) = frame { order.append(id) }
            if case .pong(let id?, _, _) = frame { order.append(id) }
        }
        #expect(Set(order) == ["r0", "r1", "r2", "p1", "p2"], "\(order)")
        // p1 needed no slot; r2 (and p2 behind it) were read once r0 or r1 had ended.
        #expect(order.first == "p1", "\(order)")
        #expect(["r0", "r1"].contains(order.dropFirst().first ?? ""), "\(order)")
        #expect(order.last == "r2", "\(order)")
        #expect(order.firstIndex(of: "p2")! > 1, "\(order)")
    }

    /// Past `maxRunningSearches`, searches wait in the daemon's queue (seen in `stats`) and run
    /// when a slot frees; past `maxQueuedSearches` waiting, one more is refused.
    @Test func searchesPastTheDaemonLimitWaitInAQueue() throws {
        // a and b run 2 s: far longer than c and d take to arrive after them.
        let d = try daemon(limits: ["maxRunningSearches": 2, "maxQueuedSearches": 1], delayMs: 2000)
        defer { d.stop() }
        let a = try d.connect()
        let b = try d.connect()
        let c = try d.connect()
        let e = try d.connect()
        // Each barrier returns once its search is running (a ping is not a search: it counts
        // against no limit).
        try a.send(["id": "a", "query": "x"])
        let earlyA = try barrier(a)
        try b.send(["id": "b", "query": "x"])
        let earlyB = try barrier(b)
        try c.send(["id": "c", "query": "x"])
        let earlyC = try barrier(c)
        let queued = try pollStats(d.connect()) { $0["queuedSearches"]?.intValue == 1 }
        #expect(queued?["queuedSearches"]?.intValue == 1, "\(String(describing: queued))")
        let refused = try e.roundTrip(["id": "e", "query": "x"])
        #expect(errorCode(refused.first) == "too_many_requests")
        #expect(try collect(a, id: "a", already: earlyA).last?.type == "done")
        #expect(try collect(b, id: "b", already: earlyB).last?.type == "done")
        let answered = try collect(c, id: "c", already: earlyC)
        let status = try #require(answered.last?.doneValue, "c: \(answered)").status
        #expect(status == .ok)
    }

    /// A search waiting in the queue can be cancelled (answered as cancelled at once) or
    /// superseded by a newer keystroke of its session, and the slot's next search runs.
    @Test func queuedSearchesCanBeCancelledOrSuperseded() throws {
        let d = try daemon(limits: ["maxRunningSearches": 1], delayMs: 1500)
        defer { d.stop() }
        let a = try d.connect()
        try a.send(["id": "a", "query": "x"])
        let earlyA = try barrier(a)
        let c = try d.connect()
        try c.send(["id": "waits", "query": "x"])
        try c.send(["id": "k1", "query": "x", "session": "s", "seq": 1])
        try c.send(["id": "k2", "query": "x", "session": "s", "seq": 2])
        try c.send(["id": "stop", "op": "cancel", "target": "waits"])
        var ends: [String: String] = [:]
        var accepted = false
        while ends.count < 2 || !accepted, let frame = try c.readFrame() {
            if case .done(let id?, let status, _, _) = frame { ends[id] = status.rawValue }
            if case .cancelAccepted("stop", "waits") = frame { accepted = true }
        }
        #expect(ends == ["waits": "cancelled", "k1": "superseded"], "\(ends)")
        #expect(accepted)
        #expect(try collect(a, id: "a", already: earlyA).last?.type == "done")
        let last = try collect(c, id: "k2")
        let status = try #require(last.last?.doneValue, "k2: \(last)").status
        #expect(status == .ok)
    }

    @Test func idleConnectionsAreClosedButWaitingOnesAreNot() throws {
        // Margins for a loaded machine: the waiting client has a second to send its request,
        // and its search outlasts the idle timeout threefold.
        let d = try daemon(limits: ["idleTimeoutMs": 1000], delayMs: 3000)
        defer { d.stop() }
        let idle = try d.connect()
        let waiting = try d.connect()
        try waiting.send(["id": "w", "query": "x"])
        #expect(try idle.readLine() == nil, "idle connection closed")
        #expect(try collect(waiting, id: "w").last?.type == "done", "a connection waiting for its answer stays")
    }

    /// A line must arrive whole within `requestReadTimeoutMs` of its first byte: a client that
    /// trickles a byte now and then (which keeps the idle timer from firing) is told and closed.
    @Test func aLineThatTricklesInIsCutAtItsDeadline() throws {
        let d = try daemon(limits: ["requestReadTimeoutMs": 1500, "idleTimeoutMs": 60_000])
        defer { d.stop() }
        let c = try d.connect(timeoutSeconds: 10)
        // Three seconds of a byte every quarter of one: twice the deadline, far from the idle timeout.
        try c.sendRaw(Array("{\"id\": \"slow\", ".utf8))
        for _ in 0..<12 {
            guard (try? c.sendRaw([0x20])) != nil else { break }
            usleep(250_000)
        }
        let frame = try c.readFrame()
        #expect(errorCode(frame) == "request_timeout", "\(String(describing: frame))")
        #expect(try c.readLine() == nil, "closed")
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }

    /// Unfinished lines of all clients together are bounded: past
    /// `maxTotalPendingInputBytes`, the connection whose read passes it is told and closed (its
    /// line dropped); the one already holding its share finishes its line, and the bytes held
    /// are given back when clients close.
    @Test func unfinishedLinesAreBoundedDaemonWide() throws {
        let d = try daemon(limits: ["maxTotalPendingInputBytes": .number(Double(1 << 20))])
        defer { d.stop() }
        let padding = String(repeating: "a", count: 700_000)
        let first = try d.connect()
        try first.sendRaw(Array("{\"id\": \"big\", \"op\": \"ping\", \"note\": \"\(padding)".utf8))
        let observer = try d.connect()
        let holding = try pollStats(observer) { ($0["pendingInputBytes"]?.intValue ?? 0) >= 700_000 }
        #expect((holding?["pendingInputBytes"]?.intValue ?? 0) >= 700_000, "\(String(describing: holding?["pendingInputBytes"]))")
        let second = try d.connect()
        try second.sendRaw(Array("{\"id\": \"big2\", \"op\": \"ping\", \"note\": \"\(padding)".utf8))
        #expect(errorCode(try second.readFrame()) == "input_backlog")
        #expect(try second.readLine() == nil, "closed")
        try first.sendRaw(Array("\"}\n".utf8))
        let answer = try first.readFrame()
        #expect(answer?.id == "big", "the first line was kept whole and answered: \(String(describing: answer))")
        let after = try pollStats(observer) { $0["pendingInputBytes"]?.intValue == 0 }
        #expect(after?["pendingInputBytes"] == 0)
    }

    @Test func clientThatNeverReadsIsStoppedAndDisconnected() throws {
        let d = try daemon(limits: ["maxPendingOutputBytes": 8192, "writeTimeoutMs": 500], hits: 200)
        defer { d.stop() }
        let c = try d.connect()
        // Flood requests without reading a byte of the answers.
        var sent = 0
        let line = Array((JSONWriter.string(["query": "x", "params": ["hitsPerPage": 200]]) + "\n").utf8)
        let flood = Array([[UInt8]](repeating: line, count: 200).joined())
        while sent < 50, (try? c.sendRaw(flood)) != nil { sent += 1 }
        // The daemon stopped reading the flood (it did not take half a megabyte of requests
        // into its memory): the client's sends failed once it was cut off.
        #expect(sent < 50)
        // The daemon cuts that client off (the only connection left is the observer's).
        try waitForStats(d.connect(), "the client that never reads cut off") { $0["connections"]?.intValue == 1 }
        // The daemon is healthy, and that client was cut off (its stream ends).
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        var ended = false
        for _ in 0..<100_000 {
            guard let l = try? c.readLine() else {
                ended = true
                break
            }
            if l.isEmpty { continue }
        }
        #expect(ended)
        #expect(d.process.isRunning)
    }

    /// Pipelined searches whose answers pile up before the client reads (two `hitsPerPage:
    /// 1000` searches on the demo once cut the connection before the first answer was flushed,
    /// with no error): the first answer arrives whole, each later one arrives whole or is
    /// refused with `output_backlog` (which, depends on the order the searches end in), and the
    /// connection keeps working. Requests not yet read when the answers pile up are not
    /// refused: the daemon stops reading them until the client reads.
    @Test func pipelinedLargeAnswersArriveOrAreRefusedWithACode() throws {
        let d = try DaemonProcess.demo(limits: ["maxPendingOutputBytes": 65536])
        defer { d.stop() }
        let c = try d.connect()
        var burst: [UInt8] = []
        for id in ["first", "later0", "later1", "later2"] {
            burst += Array(
                (JSONWriter.string(["id": .string(id), "query": "", "indices": ["movies"], "params": ["hitsPerPage": 1000]]) + "\n").utf8)
        }
        try c.sendRaw(burst)
        // The answers pile up unread: the four searches ran (a latency sample each), and more
        // than the connection's limit waits in the daemon.
        try waitForStats(d.connect(), "the four searches run, their answers unread") { s in
            let samples = s["latency"]?.objectValue?["movies"]?.objectValue?["samples"]?.intValue ?? 0
            let pending = s["pendingOutputBytes"]?.intValue ?? 0
            return samples >= 4 && pending > 65536
        }
        var ends: [String: String] = [:]
        while ends.count < 4, let frame = try c.readFrame() {
            switch frame {
            case .done(let id?, _, _, _): ends[id] = "done"
            case .error(let id?, nil, let e): ends[id] = e.code.rawValue
            default: break
            }
        }
        #expect(ends.count == 4, "\(ends)")
        #expect(ends["first"] == "done")
        #expect(ends.values.allSatisfy { $0 == "done" || $0 == "output_backlog" }, "\(ends)")
        #expect(try c.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        #expect(try c.roundTrip(["id": "again", "query": "star", "indices": ["movies"]]).last?.type == "done")
    }

    /// Other requests pipelined behind a large answer the client has not read yet (a `ping`,
    /// `getSettings`, `indices`) are answered after it: nothing cuts the connection, so the
    /// answer already queued is not lost.
    @Test func requestsBehindAnUnreadAnswerAreAnsweredAfterIt() throws {
        let d = try DaemonProcess.demo(limits: ["maxPendingOutputBytes": 65536])
        defer { d.stop() }
        let c = try d.connect()
        var burst = Array(
            (JSONWriter.string(["id": "big", "query": "", "indices": ["movies"], "params": ["hitsPerPage": 1000]]) + "\n").utf8)
        try c.sendRaw(burst)
        // The answer is queued, unread: more than the connection's limit waits in the daemon.
        try waitForStats(d.connect(), "the big answer queued unread") { ($0["pendingOutputBytes"]?.intValue ?? 0) > 65536 }
        burst = []
        for (i, op) in ["ping", "indices", "ping"].enumerated() {
            burst += Array((JSONWriter.string(["id": .string("r\(i)"), "op": .string(op)]) + "\n").utf8)
        }
        try c.sendRaw(burst)
        // A fixed wait, not a poll: the throttled daemon holds these lines unread (nothing to
        // observe); the time lets it answer them out of turn or cut the connection if it would.
        usleep(300_000)
        var seen: [String] = []
        while seen.count < 4, let frame = try c.readFrame() {
            switch frame {
            case .done(let id?, _, _, _): seen.append(id)
            case .pong(let id?, _, _): seen.append(id)
            case .info(let id?, _, _): seen.append(id)
            case .error(let id, _, let e): seen.append("\(id ?? "-"): \(e.code.rawValue)")
            default: break
            }
        }
        #expect(seen == ["big", "r0", "r1", "r2"])
    }

    /// Replies of work that ends after a large answer was queued unread (write batches
    /// committed while the page was built) are queued behind it: the connection is not cut,
    /// so neither the answer nor the acknowledgements are lost.
    @Test func writeRepliesBehindAnUnreadAnswerAreNotLost() throws {
        let dir = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 150)
        let docs = (0..<400).map { #"{"objectID":"d\#($0)","title":"doc \#($0)","body":"\#(text)"}"# }.joined(separator: "\n")
        let d = try DaemonProcess(
            config: [
                "dataDir": .string(dir.appendingPathComponent("data").path),
                "limits": ["maxPendingOutputBytes": 65536],
                "searchables": ["big": ["data": "big.ndjson", "searchableAttributes": ["title", "body"]]],
            ], files: ["big.ndjson": docs])
        defer { d.stop() }
        let c = try d.connect()
        // A page of 400 hits (built off the loop), and writes whose replies come while it is built or after.
        var burst = Array(
            (JSONWriter.string(["id": "big", "query": "doc", "indices": ["big"], "params": ["hitsPerPage": 400]]) + "\n").utf8)
        for i in 0..<8 {
            let write: JSONValue = [
                "id": .string("w\(i)"), "op": "addDocuments", "index": "big",
                "documents": [["objectID": .string("new\(i)"), "title": "new"]],
            ]
            burst += Array((JSONWriter.string(write) + "\n").utf8)
        }
        try c.sendRaw(burst)
        // Everything is answered, unread: the page waits in the daemon and the eight writes are applied.
        try waitForStats(d.connect(), "the page queued unread and the writes applied") { s in
            let big = s["writes"]?.objectValue?["big"]?.objectValue
            let pending = s["pendingOutputBytes"]?.intValue ?? 0
            return pending > 65536 && big?["documents"]?.intValue == 408 && big?["queued"]?.intValue == 0
        }
        var seen: Set<String> = []
        var failures: [String] = []
        while seen.count < 9, let frame = try c.readFrame() {
            switch frame {
            case .done(let id?, _, _, _): seen.insert(id)
            case .info(let id?, "written", _): seen.insert(id)
            case .error(let id, _, let e): failures.append("\(id ?? "-"): \(e.code.rawValue)")
            default: break
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(seen == Set(["big"] + (0..<8).map { "w\($0)" }))
    }

    /// One answer larger than twice `maxPendingOutputBytes` reaches a client that reads it: its
    /// frames are queued in one loop turn, before the client can read any of them, and were
    /// once taken for answers piling up unread (`fedsearch search "" --hits 1000` failed on the
    /// demo config). A client that then asks again, having read it, is answered too.
    @Test func oneAnswerLargerThanTheLimitReachesAReadingClient() throws {
        let d = try daemon(limits: ["maxPendingOutputBytes": 8192], hits: 200)
        defer { d.stop() }
        let c = try d.connect()
        for id in ["big", "again"] {
            let frames = try c.roundTrip(["id": .string(id), "query": "x", "params": ["hitsPerPage": 200]])
            #expect(frames.map(\.type) == ["results", "merged", "done"], "\(id): \(frames.map(\.type))")
            let bytes = frames.reduce(0) { $0 + $1.line().count }
            #expect(bytes > 2 * 8192, "the answer must be larger than twice the limit: \(bytes) bytes")
        }
    }

    /// A client cut off in the middle of a batch of lines (it read none of its answers for
    /// `writeTimeoutMs`) gets nothing started by the lines after the cut: a search among
    /// them once stayed counted as running for good, and with `maxRunningSearches: 1` every
    /// later search of every client was refused.
    @Test func linesAfterTheCutStartNothing() throws {
        let d = try daemon(limits: ["maxPendingOutputBytes": 4096, "maxRunningSearches": 1, "writeTimeoutMs": 300])
        defer { d.stop() }
        let c = try d.connect()
        let indices = Array((JSONWriter.string(["op": "indices"]) + "\n").utf8)
        let search = Array((JSONWriter.string(["id": "cut", "query": "x"]) + "\n").utf8)
        try c.sendRaw(Array([[UInt8]](repeating: indices, count: 5000).joined()) + search + indices)
        // The daemon stops acting on the lines once the replies pile up, and cuts the client
        // off when they stay unread (its stream ends; the only connection left is the observer's).
        try waitForStats(d.connect(), "the client cut off") { $0["connections"]?.intValue == 1 }
        var ended = false
        for _ in 0..<100_000 {
            guard let l = try? c.readLine() else {
                ended = true
                break
            }
            if l.isEmpty { continue }
        }
        #expect(ended)
        // Another client's search runs.
        let other = try d.connect()
        try other.send(["id": "o", "query": "x"])
        let frames = try collect(other, id: "o")
        #expect(frames.last?.type == "done")
        #expect(!frames.contains { errorCode($0) == "too_many_requests" }, "\(frames.map(\.type))")
    }

    /// A reload that raises `maxRunningSearches` while searches wait: the waiting ones start
    /// under the new limit, and a search refused when its turn comes (its index was removed)
    /// gets its error and leaves its connection working. (Limits copied at accept once made
    /// the loop spin on the queue for good.)
    @Test func queuedSearchesFollowAReload() throws {
        var config = FaultConfigs.config([("s", FaultConfigs.source(delayMs: 1500)), ("gone", FaultConfigs.source())])
        config["limits"] = ["maxRunningSearches": 1]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let a = try d.connect()
        try a.send(["id": "a", "query": "x", "indices": ["s"]])
        let earlyA = try barrier(a)
        let b = try d.connect()
        try b.send(["id": "b", "query": "x", "indices": ["s"]])
        try b.send(["id": "g", "query": "x", "indices": ["gone"]])
        let observer = try d.connect()
        #expect(try pollStats(observer) { $0["queuedSearches"]?.intValue == 2 }?["queuedSearches"]?.intValue == 2)
        config["limits"] = ["maxRunningSearches": 4]
        config["searchables"] = .object(JSONObject([("s", FaultConfigs.source(delayMs: 1500))]))
        try d.rewriteConfig(config)
        #expect(try observer.roundTrip(["id": "r", "op": "reload"]).first?.type == "reload")
        #expect(try collect(a, id: "a", already: earlyA).last?.type == "done")
        var ends: [String: String] = [:]
        while ends.count < 2, let frame = try b.readFrame() {
            if case .done(let id?, _, _, _) = frame { ends[id] = "done" }
            if case .error(let id?, nil, let e) = frame { ends[id] = e.code.rawValue }
        }
        #expect(ends == ["b": "done", "g": "unknown_index"], "\(ends)")
        #expect(try b.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }

    /// An answer past `maxAnswerBytes` is ended with `answer_too_large`; a smaller one on the
    /// same connection is answered.
    @Test func answersPastMaxAnswerBytesAreRefusedWithACode() throws {
        let d = try daemon(limits: ["maxAnswerBytes": 8192], hits: 200)
        defer { d.stop() }
        let c = try d.connect()
        let big = try c.roundTrip(["id": "big", "query": "x", "params": ["hitsPerPage": 200]])
        #expect(errorCode(big.last) == "answer_too_large", "\(big.map { $0.type })")
        #expect(big.reduce(0) { $0 + $1.line().count } < 2 * 8192 + 1024, "what was sent stays near the limit")
        let small = try c.roundTrip(["id": "small", "query": "x", "params": ["hitsPerPage": 5]])
        #expect(small.last?.type == "done", "\(small.map { $0.type })")
    }

    /// The engine stops building a page once its hits pass `maxAnswerBytes`: that source
    /// fails with `answer_too_large` (its page never built whole), the others answer, and
    /// two pages that each fit but pass the limit together end the request with the code.
    @Test func pagesPastMaxAnswerBytesAreNotBuilt() throws {
        let text = String(repeating: "lorem ipsum dolor ", count: 100)  // about 1.8 KB
        let docs = (0..<60).map { #"{"objectID":"d\#($0)","title":"doc \#($0)","body":"\#(text)"}"# }.joined(separator: "\n")
        let d = try DaemonProcess(
            config: [
                "limits": ["maxAnswerBytes": 16384],
                "searchables": ["big": ["data": "big.ndjson", "searchableAttributes": ["title", "body"]]],
            ], files: ["big.ndjson": docs])
        defer { d.stop() }
        let c = try d.connect()
        // The same index under a second name, retrieving and highlighting titles only.
        func titles(_ name: String) -> JSONValue {
            ["index": "big", "as": .string(name), "params": ["attributesToRetrieve": ["title"], "attributesToHighlight": ["title"]]]
        }
        let both = try c.roundTrip(["id": "a", "query": "doc", "indices": ["big", titles("small")], "params": ["hitsPerPage": 20]])
        let bigError = both.compactMap { f -> SearchError? in
            if case .error(_, "big"?, let e) = f { return e }
            return nil
        }.first
        #expect(bigError?.code.rawValue == "answer_too_large", "\(both.map { $0.type })")
        #expect(bigError?.message.contains("hitsPerPage") == true)
        #expect(both.contains { if case .results(_, "small", let r) = $0 { return r.hits.count == 20 } else { return false } })
        let sources = try #require(both.last?.doneValue, "no done: \(both.map { $0.type })").sources
        #expect(sources.first { $0.name == "big" }?.report.errorCode?.rawValue == "answer_too_large")
        // Under the limit, the same index answers on the same connection.
        let few = try c.roundTrip(["id": "b", "query": "doc", "indices": ["big"], "params": ["hitsPerPage": 3]])
        #expect(few.contains { if case .results(_, "big", let r) = $0 { return r.hits.count == 3 } else { return false } })
        // Each page alone fits; together (and with the merged list) they pass the limit.
        let two = try c.roundTrip(["id": "c", "query": "doc", "indices": [titles("t1"), titles("t2")], "params": ["hitsPerPage": 60]])
        #expect(errorCode(two.last) == "answer_too_large", "\(two.map { $0.type })")
    }

    /// Ten documents `d0`...`d9` of about 1.8 KB each, one per line.
    static let bigDocuments = (0..<10).map { i in
        #"{"objectID":"d\#(i)","body":"\#(String(repeating: "lorem ipsum dolor ", count: 100))"}"#
    }.joined(separator: "\n")

    /// `getDocuments` is bounded by `maxAnswerBytes` as a search is: ten thousand copies of
    /// one id get `answer_too_large` naming the field (and the connection goes on), a few get
    /// the documents, read from memory with no `dataDir`, in order.
    @Test func documentsPastMaxAnswerBytesAreRefusedWithACode() throws {
        let d = try DaemonProcess(
            config: [
                "limits": ["maxAnswerBytes": 262144],
                "searchables": ["big": ["data": "big.ndjson"]],
            ], files: ["big.ndjson": Self.bigDocuments])
        defer { d.stop() }
        let c = try d.connect()
        let many = try c.roundTrip([
            "id": "g", "op": "getDocuments", "index": "big", "objectIDs": .array(Array(repeating: "d1", count: 10_000)),
        ])
        #expect(errorCode(many.last) == "answer_too_large", "\(many.map { $0.type })")
        if case .error(_, _, let e)? = many.last { #expect(e.message.contains("objectIDs")) }
        let few = try c.roundTrip(["id": "f", "op": "getDocuments", "index": "big", "objectIDs": ["d2", "nope", "d1"]])
        let payload = try #require(few.last?.infoPayload("documents"), "\(few.map { $0.type })")
        #expect(payload["results"]?.arrayValue?.map { $0.objectValue?["objectID"] ?? .null } == ["d2", .null, "d1"])
        // Past the count encoded on the loop, still answered, off it.
        let ids = (0..<30).flatMap { _ in ["d3", "d4", "d5"] }
        let more = try c.roundTrip(["id": "m", "op": "getDocuments", "index": "big", "objectIDs": .array(ids.map { .string($0) })])
        let morePayload = try #require(more.last?.infoPayload("documents"), "\(more.map { $0.type })")
        #expect(morePayload["results"]?.arrayValue?.count == 90)
    }

    /// Large `getDocuments` pipelined by a client that does not read are taken one at a time:
    /// the next line waits while one is encoded, and once its answer is queued unread the
    /// connection is throttled, so the daemon holds about one answer, not twenty. All are
    /// answered once it reads.
    @Test func pipelinedLargeDocumentReadsAreTakenOneAtATime() throws {
        let d = try DaemonProcess(
            config: [
                "limits": ["maxPendingOutputBytes": 65536],
                "searchables": ["big": ["data": "big.ndjson"]],
            ], files: ["big.ndjson": Self.bigDocuments])
        defer { d.stop() }
        let c = try d.connect()
        let ids: JSONValue = .array((0..<100).map { .string("d\($0 % 10)") })
        var burst: [UInt8] = []
        for i in 0..<20 {
            burst += Array(
                (JSONWriter.string(["id": .string("g\(i)"), "op": "getDocuments", "index": "big", "objectIDs": ids]) + "\n").utf8)
        }
        try c.sendRaw(burst)
        // A fixed wait, not a poll: what is checked is that the daemon does not take more than
        // about one answer in this time.
        usleep(1_000_000)
        let observer = try d.connect()
        let statsFrames = try observer.roundTrip(["id": "s", "op": "stats"])
        let stats = try #require(statsFrames.first?.infoPayload("stats"), "no stats")
        let pending = stats["pendingOutputBytes"]?.intValue ?? 0
        // One answer is about 190 KB; twenty would be 3.8 MB.
        #expect(pending > 0 && pending < 600_000, "pending \(pending)")
        var answered = 0
        while answered < 20, let frame = try c.readFrame() {
            if case .info(_, "documents", let payload) = frame, payload["results"]?.arrayValue?.count == 100 { answered += 1 }
        }
        #expect(answered == 20)
    }

    /// Past `maxTotalPendingOutputBytes` unread by all clients together, no search starts: a
    /// second client's search waits in the queue until the first client reads its answers,
    /// and the daemon's count of pending output is back to zero once it has.
    @Test func theDaemonWideOutputBudgetHoldsSearchesUntilClientsRead() throws {
        let d = try DaemonProcess.demo(limits: ["maxTotalPendingOutputBytes": 1_048_576, "maxPendingOutputBytes": 4_194_304])
        defer { d.stop() }
        let slow = try d.connect()
        // One answer of several megabytes, not read yet: most of it stays in the daemon.
        try slow.send(["id": "big", "query": "", "indices": ["movies"], "params": ["hitsPerPage": 1000]])
        let observer = try d.connect()
        let budget = 1_048_576
        let over = try pollStats(observer) { ($0["pendingOutputBytes"]?.intValue ?? 0) > budget }
        #expect((over?["pendingOutputBytes"]?.intValue ?? 0) > budget, "\(String(describing: over?["pendingOutputBytes"]))")
        let waiting = try d.connect()
        try waiting.send(["id": "w", "query": "star", "indices": ["movies"]])
        let queued = try pollStats(observer) { $0["queuedSearches"]?.intValue == 1 }
        #expect(queued?["queuedSearches"]?.intValue == 1)
        // The slow client reads its answer whole; then the waiting search runs.
        let answer = try collect(slow, id: "big")
        #expect(answer.last?.type == "done", "\(answer.map { $0.type })")
        #expect(try collect(waiting, id: "w").last?.type == "done")
        let settled = try pollStats(observer) { $0["pendingOutputBytes"]?.intValue == 0 && $0["queuedSearches"]?.intValue == 0 }
        #expect(settled?["pendingOutputBytes"]?.intValue == 0, "\(String(describing: settled?["pendingOutputBytes"]))")
    }

    /// A large answer goes out in pieces as its client reads: while the client reads nothing,
    /// the daemon holds at most `maxPendingOutputBytes` of copies in libevent, and the rest as
    /// the hits' own bytes (`streamedOutputBytes`), not a whole copy of the frame. Read, the
    /// answer is the one a prompt reader gets.
    @Test func largeAnswersStreamToASlowReaderInPieces() throws {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 150)  // about 4 KB
        let docs = (0..<200).map { #"{"objectID":"d\#($0)","title":"doc \#($0)","body":"\#(text)"}"# }.joined(separator: "\n")
        let limit = 65536
        let d = try DaemonProcess(
            config: [
                "limits": ["maxPendingOutputBytes": .number(Double(limit))],
                "searchables": ["big": ["data": "big.ndjson", "searchableAttributes": ["title", "body"]]],
            ], files: ["big.ndjson": docs])
        defer { d.stop() }
        let request: JSONValue = ["id": "big", "query": "doc", "indices": ["big"], "params": ["hitsPerPage": 200]]
        let slow = try d.connect()
        try slow.send(request)
        let observer = try d.connect()
        let held = try pollStats(observer) { ($0["streamedOutputBytes"]?.intValue ?? 0) > 1_000_000 }
        let pending = held?["pendingOutputBytes"]?.intValue ?? 0
        let streamed = held?["streamedOutputBytes"]?.intValue ?? 0
        #expect(streamed > 1_000_000, "\(String(describing: held))")
        // Copies in libevent: up to the limit, plus the last piece copied in part.
        #expect(pending - streamed <= limit, "pending \(pending), streamed \(streamed)")
        let answer = try collect(slow, id: "big")
        #expect(answer.last?.type == "done", "\(answer.map { $0.type })")
        let prompt = try d.connect().roundTrip(request)
        func hits(_ frames: [Frame]) -> [[Hit]] {
            frames.compactMap { f -> [Hit]? in
                switch f {
                case .results(_, _, let r): r.hits
                case .merged(_, let m): m.hits.map(\.hit)
                default: nil
                }
            }
        }
        #expect(hits(answer).map(\.count) == [200, 200])
        #expect(hits(answer) == hits(prompt))
        let settled = try pollStats(observer) { $0["pendingOutputBytes"]?.intValue == 0 && $0["streamedOutputBytes"]?.intValue == 0 }
        #expect(settled?["streamedOutputBytes"]?.intValue == 0, "\(String(describing: settled))")
    }

    /// A client that sends a search with a large answer and shuts its sending side gets the
    /// whole answer before the connection closes, whatever is left of it at the last copy:
    /// answers of several sizes, each to `done` and then EOF. Pages of more than 200 hits run
    /// off the loop, so the daemon reads the end of input before the answer is queued and
    /// starts closing while most of it is still to be copied.
    @Test(arguments: [210, 300, 333, 400])
    func aHalfClosedClientGetsAWholeStreamedAnswer(hits: Int) throws {
        let text = String(repeating: "lorem ipsum dolor sit amet ", count: 150)
        let docs = (0..<400).map { #"{"objectID":"d\#($0)","title":"doc \#($0)","body":"\#(text)"}"# }.joined(separator: "\n")
        let d = try DaemonProcess(
            config: [
                "limits": ["maxPendingOutputBytes": 65536],
                "searchables": ["big": ["data": "big.ndjson", "searchableAttributes": ["title", "body"]]],
            ], files: ["big.ndjson": docs])
        defer { d.stop() }
        let c = try d.connect()
        try c.send(["id": "h", "query": "doc", "indices": ["big"], "params": ["hitsPerPage": .number(Double(hits))]])
        c.finishSending()
        var types: [String] = []
        var bytes = 0
        while let line = try c.readLine() {
            bytes += line.count
            let frame = try FrameDecoder.decode(line)
            types.append(frame.type)
            if case .results(_, _, let r) = frame { #expect(r.hits.count == hits) }
        }
        #expect(types == ["results", "merged", "done"], "\(bytes) bytes")
        #expect(bytes > hits * 8000)
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
