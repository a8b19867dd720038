import DaemonTestSupport
import Foundation
import Synchronization
import Testing
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// Live subscriptions with the real daemon: a subscriber's first answer plus every `update`
/// and `resync` after it rebuild, after each acknowledged write, exactly what a fresh search
/// answers (hits in order, counts, facets), for random writes against several subscriptions
/// (queries, filters, facets, pages, a merged list of two sources); `seq` counts every frame
/// with no gap; unsubscribing or closing ends a subscription; the limits hold.
@Suite(.serialized)
struct LiveSubscriptionTests {
    let films = IncrementalWriteTests()

    /// The client's view of one subscription (`seq` checked as each frame is taken).
    struct View {
        var answer = LiveAnswer()
        /// The first answer's `done` frame.
        var done: JSONObject?

        mutating func take(_ frame: JSONObject) throws {
            if frame["type"] == "done" { done = frame }
            try answer.take(frame)
        }

        /// The same answer, fields compared by name.
        func matches(_ other: View) -> Bool {
            let (pages, merged) = (answer.pages, answer.merged)
            guard Set(pages.keys) == Set(other.answer.pages.keys), (merged == nil) == (other.answer.merged == nil) else { return false }
            func same(_ a: LivePage, _ b: LivePage) -> Bool { a.sameAnswer(as: b) }
            if let m = merged, let o = other.answer.merged, !same(m, o) { return false }
            return pages.allSatisfy { same($0.value, other.answer.pages[$0.key]!) }
        }
    }

    /// Stops the daemon and removes its folders.
    static func tearDown(_ d: DaemonProcess, dataDir: String) {
        d.stop()
        try? FileManager.default.removeItem(at: d.directory)
        try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
    }

    /// `count` random films as NDJSON.
    static func initialFilms(_ count: Int, _ rng: inout SystemRandomNumberGenerator) -> String {
        (0..<count).map { JSONWriter.string(.object(IncrementalWriteTests.film($0, &rng))) }.joined(separator: "\n")
    }

    /// Subscribes to `request` under `id` (updates as soon as they come) and reads its first
    /// answer, to its `done`.
    func subscribe(_ c: SocketConnection, _ id: JSONValue, _ request: JSONObject) throws -> View {
        var r = request
        r["id"] = id
        r["op"] = "subscribe"
        r["minIntervalMs"] = 0
        try c.send(.object(r))
        var view = View()
        while let frame = try line(c) {
            #expect(frame["id"] == id && frame["type"] != "error", "\(frame)")
            try view.take(frame)
            if frame["type"] == "done" { break }
        }
        return view
    }

    /// The frames of one search, read to its `done`, as a view.
    func fresh(_ c: SocketConnection, _ request: JSONObject) throws -> View {
        var r = request
        r["id"] = "fresh"
        try c.send(.object(r))
        var view = View()
        while let line = try c.readLine() {
            let frame = try #require(try JSONParser.parse(line).objectValue)
            try view.take(frame)
            if frame["type"] == "done" { break }
            #expect(frame["type"] != "error", "\(frame)")
        }
        return view
    }

    /// A write of film `id`: added or replaced whole (kinds 0 and 1), its votes changed (2), or
    /// deleted (3).
    static func randomWrite(_ id: String, kind: Int, _ rng: inout SystemRandomNumberGenerator) -> JSONValue {
        switch kind {
        case 0, 1:
            return ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(IncrementalWriteTests.film(0, &rng, id: id))]]
        case 2:
            return [
                "id": "w", "op": "partialUpdateDocuments", "index": "films",
                "documents": [["objectID": .string(id), "votes": .number(Double(Int.random(in: 0...60, using: &rng)))]],
            ]
        default:
            return ["id": "w", "op": "deleteDocuments", "index": "films", "objectIDs": [.string(id)]]
        }
    }

    /// Takes the subscriber's frames (each an update or a resync) until every view is what
    /// `expected` holds, for 10 s at most; how many came.
    @discardableResult
    func follow(_ subscriber: SocketConnection, _ views: inout [String: View], until expected: [String: View]) throws -> Int {
        var frames = 0
        let deadline = Date().addingTimeInterval(10)
        while !expected.allSatisfy({ views[$0.key]!.matches($0.value) }), Date() < deadline {
            guard let frame = try line(subscriber) else { break }
            let sid = try #require(frame["id"]?.stringValue)
            #expect(["update", "resync"].contains(frame["type"]?.stringValue), "\(frame)")
            try views[sid]!.take(frame)
            frames += 1
        }
        return frames
    }

    func line(_ c: SocketConnection) throws -> JSONObject? {
        try c.readLine().flatMap { try JSONParser.parse($0).objectValue }
    }

    static let subscriptions: [String: JSONObject] = [
        "all": ["query": "", "indices": ["films"], "params": ["hitsPerPage": 5, "facets": ["genre", "year"]]],
        "star": [
            "query": "star", "indices": ["films"],
            "params": ["hitsPerPage": 4, "page": 1, "filters": "genre:drama OR genre:comedy", "facets": ["genre"]],
        ],
        "two": [
            "query": "wars", "indices": ["films", ["index": "films", "as": "classics", "params": ["filters": "year < 2005"]]],
            "params": ["hitsPerPage": 6], "merge": ["strategy": "score"],
        ],
    ]

    @Test func firstAnswerAndDeltasRebuildWhatAFreshSearchAnswersAfterEveryWrite() throws {
        var rng = SystemRandomNumberGenerator()
        let initial = Self.initialFilms(300, &rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let subscriber = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let writer = try d.connect()
        var views: [String: View] = [:]
        for (id, request) in Self.subscriptions {
            let view = try subscribe(subscriber, .string(id), request)
            #expect(
                view.done?["sources"]?.objectValue?["films"]?.objectValue?["freshness"] == ["kind": "push"],
                "\(String(describing: view.done))")
            #expect(view.matches(try fresh(writer, request)), "\(id): the first answer is the search's")
            views[id] = view
        }
        var updates = 0
        for step in 0..<40 {
            try films.written(writer, Self.randomWrite("f\(Int.random(in: 0..<320, using: &rng))", kind: step % 4, &rng))
            var expected: [String: View] = [:]
            for (sid, request) in Self.subscriptions { expected[sid] = try fresh(writer, request) }
            updates += try follow(subscriber, &views, until: expected)
            for (sid, e) in expected { #expect(views[sid]!.matches(e), "step \(step), \(sid): \(views[sid]!) against \(e)") }
        }
        #expect(updates >= 20, "updates came: \(updates)")
        let stats = try writer.roundTrip(["id": "s", "op": "stats"])
        #expect(stats.first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"] == 3)
    }

    /// A random subscription: a query of the write tests (typos and prefixes among them),
    /// filters, facets (disjunctive too), a page, one source or two with a merge strategy.
    static func randomSubscription(_ rng: inout SystemRandomNumberGenerator) -> JSONObject {
        let filters: [String?] = [
            nil, "genre:drama", "year > 2005", "genre:comedy OR genre:horror", "NOT genre:documentary AND year <= 2015",
        ]
        var params: JSONObject = [
            "hitsPerPage": .number(Double(Int.random(in: 3...8, using: &rng))), "page": .number(Double(Int.random(in: 0...2, using: &rng))),
        ]
        if let f = filters.randomElement(using: &rng)! { params["filters"] = .string(f) }
        let facets = ["genre", "year"].filter { _ in Bool.random(using: &rng) }
        if !facets.isEmpty { params["facets"] = .array(facets.map(JSONValue.string)) }
        if facets.contains("genre"), Bool.random(using: &rng) {
            params["facetFilters"] = [["genre:drama", "genre:comedy"]]
            params["disjunctiveFacets"] = ["genre"]
        }
        var request: JSONObject = ["query": .string(IncrementalWriteTests.queries.randomElement(using: &rng)!), "params": .object(params)]
        if Bool.random(using: &rng) {
            request["indices"] = ["films"]
        } else {
            request["indices"] = ["films", ["index": "films", "as": "recent", "params": ["filters": "year >= 2010"]]]
            request["merge"] = ["strategy": .string(["score", "rrf", "interleave"].randomElement(using: &rng)!)]
        }
        return request
    }

    /// The property of #44 over random subscriptions: after every random write, each
    /// subscriber's state (its first answer and every frame since) is a fresh search's answer.
    @Test func randomSubscriptionsFollowRandomWrites() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": Self.initialFilms(200, &rng)])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let subscriber = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let writer = try d.connect()
        var requests: [String: JSONObject] = [:]
        var views: [String: View] = [:]
        for i in 0..<10 {
            let request = Self.randomSubscription(&rng)
            requests["r\(i)"] = request
            views["r\(i)"] = try subscribe(subscriber, .string("r\(i)"), request)
        }
        for step in 0..<30 {
            let id = "f\(Int.random(in: 0..<230, using: &rng))"
            try films.written(writer, Self.randomWrite(id, kind: Int.random(in: 0..<4, using: &rng), &rng))
            var expected: [String: View] = [:]
            for (sid, request) in requests { expected[sid] = try fresh(writer, request) }
            try follow(subscriber, &views, until: expected)
            for (sid, e) in expected {
                #expect(views[sid]!.matches(e), "step \(step), \(sid) \(requests[sid]!): \(views[sid]!) against \(e)")
            }
        }
    }

    /// The percolator: a write that cannot change a subscription's answer (a film that its
    /// words do not match, outside its filters) runs no search for it (`runsSkipped`) and sends
    /// nothing; one that can, runs it and sends the update.
    @Test func aWriteASubscriptionCannotSeeRunsNoSearchForIt() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var films: [JSONObject] = []
        for (i, (title, genre)) in [("Star Quest", "comedy"), ("River Rover", "drama"), ("Star Trek", "drama")].enumerated() {
            var film = IncrementalWriteTests.film(i, &rng, id: "k\(i)")
            (film["title"], film["plot"], film["genre"]) = (.string(title), "quiet", .string(genre))
            films.append(film)
        }
        let initial = films.map { JSONWriter.string(.object($0)) }.joined(separator: "\n")
        let d = try DaemonProcess(config: self.films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let writer = try d.connect()
        let requests: [String: JSONObject] = [
            "words": ["query": "star", "indices": ["films"], "params": ["hitsPerPage": 5]],
            "comedies": ["query": "", "indices": ["films"], "params": ["hitsPerPage": 5, "filters": "genre:comedy", "facets": ["year"]]],
        ]
        var views: [String: View] = [:]
        for (id, request) in requests { views[id] = try subscribe(c, .string(id), request) }
        func skipped() throws -> Int {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["runsSkipped"]?
                .intValue ?? -1
        }
        // The first answers' own extra run (a write may have come meanwhile) is over.
        Thread.sleep(forTimeInterval: 0.3)
        let before = try skipped()
        // River Rover, a drama: neither "star" nor a comedy, before or after.
        try self.films.written(
            writer, ["id": "w", "op": "partialUpdateDocuments", "index": "films", "documents": [["objectID": "k1", "votes": 77]]])
        #expect(try poll(seconds: 5) { try skipped() == before + 2 }, "both spared after \(before)")
        try c.send(["id": "p", "op": "ping"])
        #expect(try line(c)?["type"] == "pong", "no update came before the pong")
        // Star Trek: "star" matches it.
        try self.films.written(
            writer, ["id": "w", "op": "partialUpdateDocuments", "index": "films", "documents": [["objectID": "k2", "votes": 999]]])
        let expected = try fresh(writer, requests["words"]!)
        while !views["words"]!.matches(expected) {
            guard let frame = try line(c) else { break }
            try views[frame["id"]!.stringValue!]!.take(frame)
        }
        #expect(views["words"]!.matches(expected))
        #expect(views["words"]!.answer.pages["films"]?.hits.first?["objectID"] == "k2")
        #expect(try skipped() == before + 3, "the comedies spared again")
    }

    @Test func unsubscribingOrClosingEndsASubscriptionAndTheLimitsHold() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["limits"] = ["maxSubscriptionsPerConnection": 2]
        var rng = SystemRandomNumberGenerator()
        let initial = Self.initialFilms(50, &rng)
        let d = try DaemonProcess(config: config, files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let writer = try d.connect()
        func subscribe(_ id: String, indices: JSONValue = ["films"]) throws -> [JSONObject] {
            try c.send(["id": .string(id), "op": "subscribe", "query": "", "indices": indices, "minIntervalMs": 0])
            var frames: [JSONObject] = []
            while let f = try line(c) {
                frames.append(f)
                if f["type"] == "done" || f["type"] == "error" { break }
            }
            return frames
        }
        #expect(try subscribe("a").last?["type"] == "done")
        func code(_ f: JSONObject?) -> JSONValue? { f?["error"]?.objectValue?["code"] }
        #expect(code(try subscribe("a").last) == "duplicate_id")
        #expect(try subscribe("b").last?["type"] == "done")
        let third = try subscribe("c").last
        #expect(
            code(third) == "too_many_requests"
                && third?["error"]?.objectValue?["message"]?.stringValue?.contains("maxSubscriptionsPerConnection") == true,
            "\(String(describing: third))")
        #expect(try c.roundTrip(["id": "x", "op": "search", "query": "", "indices": ["nope"]]).first?.type == "error")
        try c.send(["id": "u", "op": "unsubscribe", "target": "zzz"])
        #expect(code(try line(c)) == "unknown_request")
        try c.send(["id": "u", "op": "unsubscribe", "target": "a"])
        let ended = try line(c)
        #expect(ended?["type"] == "unsubscribed" && ended?["target"] == "a", "\(String(describing: ended))")
        // A write: only "b" hears of it (a new film matches the empty query).
        try films.written(
            writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(IncrementalWriteTests.film(900, &rng))]])
        let update = try line(c)
        #expect(update?["id"] == "b" && update?["seq"] == 1, "\(String(describing: update))")
        // Then b's merged list, and nothing for a.
        try c.send(["id": "p", "op": "ping"])
        var later: [JSONObject] = []
        while let f = try line(c), f["type"] != "pong" { later.append(f) }
        #expect(later.allSatisfy { $0["id"] == "b" } && later.map { $0["seq"] } == [2], "\(later)")
        // An unknown index is refused as a search is.
        #expect(code(try subscribe("z", indices: ["nope"]).last) == "unknown_index")
        func open() throws -> Int? {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"]?.intValue
        }
        #expect(try open() == 1)
        c.finishSending()
        withExtendedLifetime(c) {}
    }

    /// A subscriber that stops reading: once its unread output passes
    /// `limits.maxPendingOutputBytes`, its subscription stops running (writes go on, and are
    /// coalesced), and when it reads again the frames still rebuild the current answer.
    @Test func aSubscriberThatStopsReadingIsCoalescedNotBuffered() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["limits"] = ["maxPendingOutputBytes": 4096, "writeTimeoutMs": 0]
        let initial = Self.initialFilms(100, &rng)
        let d = try DaemonProcess(config: config, files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let subscriber = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let writer = try d.connect()
        let request: JSONObject = ["query": "", "indices": ["films"], "params": ["hitsPerPage": 100, "facets": ["genre", "year"]]]
        var view = try subscribe(subscriber, "live", request)
        // Each write moves every hit down the page (the newest film has the most votes).
        let writes = 300
        for i in 0..<writes {
            var film = IncrementalWriteTests.film(1000 + i, &rng)
            film["votes"] = .number(Double(100 + i))
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        }
        func stats() throws -> JSONObject? {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue
        }
        let runs = try #require(try stats()?["runs"]?.intValue)
        #expect(runs < writes * 3 / 4, "runs while the subscriber read nothing: \(runs) for \(writes) writes")
        let expected = try fresh(writer, request)
        let deadline = Date().addingTimeInterval(20)
        while !view.matches(expected), Date() < deadline {
            guard let frame = try line(subscriber) else { break }
            try view.take(frame)
        }
        #expect(view.matches(expected), "once read, the frames rebuild the answer")
    }

    /// `fedsearch watch`, as a person runs it: the first answer, then the page that changed
    /// when a film is added, the new one marked; interrupting it ends the subscription.
    /// Two subscribers of one search, one of which stops reading: the other is sent every
    /// change, the search is not run again for the slow one while nothing is written, and
    /// once it reads, it is sent the last answer and holds what a fresh search answers.
    @Test func aSlowSubscriberNeitherHoldsUpNorReRunsItsSharedSearch() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["limits"] = ["maxPendingOutputBytes": 4096, "writeTimeoutMs": 0]
        let d = try DaemonProcess(config: config, files: ["films.ndjson": Self.initialFilms(100, &rng)])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let request: JSONObject = ["query": "", "indices": ["films"], "params": ["hitsPerPage": 100, "facets": ["genre", "year"]]]
        let slow = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        var slowView = try subscribe(slow, "slow", request)
        // The quick one reads on a thread of its own, from its first answer on.
        let quickView = Mutex(View())
        let answered = Atomic<Bool>(false)
        let socket = d.socketPath
        var quickRequest = request
        quickRequest["id"] = "quick"
        quickRequest["op"] = "subscribe"
        quickRequest["minIntervalMs"] = 0
        let subscribeLine = JSONWriter.bytes(.object(quickRequest)) + [0x0A]
        let reading = Thread {
            guard let quick = try? SocketConnection(path: socket, timeoutSeconds: 30), (try? quick.sendRaw(subscribeLine)) != nil else {
                return
            }
            while let bytes = try? quick.readLine(), case .object(let frame)? = try? JSONParser.parse(bytes) {
                _ = try? quickView.withLock { try $0.take(frame) }
                if frame["type"] == "done" { answered.store(true, ordering: .releasing) }
            }
        }
        reading.start()
        #expect(poll(seconds: 10) { answered.load(ordering: .acquiring) })
        let writer = try d.connect()
        for i in 0..<200 {
            var film = IncrementalWriteTests.film(1000 + i, &rng)
            film["votes"] = .number(Double(100 + i))
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        }
        let expected = try fresh(writer, request)
        #expect(poll(seconds: 10) { quickView.withLock { $0.matches(expected) } }, "the reading subscriber kept up")
        func runs() throws -> Int? {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["runs"]?.intValue
        }
        let before = try runs()
        Thread.sleep(forTimeInterval: 1)
        #expect(try runs() == before, "no run while nothing is written")
        let deadline = Date().addingTimeInterval(20)
        while !slowView.matches(expected), Date() < deadline {
            guard let frame = try line(slow) else { break }
            try slowView.take(frame)
        }
        #expect(slowView.matches(expected), "once it reads, the slow one holds the answer")
    }

    @Test func fedsearchWatchPrintsTheAnswerThenEachChange() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let initial = Self.initialFilms(30, &rng)
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let watch = Process()
        watch.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearch")
        watch.arguments = ["watch", "", "--index", "films", "--hits", "3", "--interval", "0", "--socket", d.socketPath]
        let output = Pipe()
        watch.standardOutput = output
        watch.standardError = output
        let printed = Mutex("")
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            printed.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try watch.run()
        defer { if watch.isRunning { watch.terminate() } }
        #expect(poll(seconds: 10) { printed.withLock { $0.contains("merged") } }, "the first answer: \(printed.withLock { $0 })")
        let writer = try d.connect()
        var film = IncrementalWriteTests.film(500, &rng)
        film["title"] = "Watched Zeta"
        film["votes"] = 1000
        try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        #expect(
            poll(seconds: 10) { printed.withLock { $0.contains("update 1") && $0.contains("+ 1. Watched Zeta") } },
            "the change: \(printed.withLock { $0 })")
        watch.terminate()
        watch.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(
            try poll(seconds: 5) {
                try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"] == 0
            })
    }

    /// Subscriptions with the same request (on two connections of one user) share one run
    /// per write, and each still gets its own deltas under its own id.
    @Test func theSameSearchRunsOnceForAllItsSubscribers() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let initial = Self.initialFilms(40, &rng)
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let request: JSONObject = ["query": "", "indices": ["films"], "params": ["hitsPerPage": 5, "facets": ["genre"]]]
        var subscribers: [(SocketConnection, View)] = []
        for id in ["one", "two", "three"] {
            let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
            subscribers.append((c, try subscribe(c, .string(id), request)))
        }
        let writer = try d.connect()
        func stats() throws -> JSONObject? {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue
        }
        // The runs after the first answers (one each, to catch a write between) are done.
        #expect(try poll(seconds: 5) { try stats()?["runs"]?.intValue ?? 0 >= 1 })
        Thread.sleep(forTimeInterval: 0.2)
        let before = try #require(try stats()?["runs"]?.intValue)
        let writes = 10
        for i in 0..<writes {
            var film = IncrementalWriteTests.film(100 + i, &rng)
            film["votes"] = .number(Double(500 + i))
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
            let expected = try fresh(writer, request)
            for k in subscribers.indices {
                let deadline = Date().addingTimeInterval(10)
                while !subscribers[k].1.matches(expected), Date() < deadline {
                    guard let frame = try line(subscribers[k].0) else { break }
                    #expect(frame["id"] == .string(["one", "two", "three"][k]), "\(frame)")
                    try subscribers[k].1.take(frame)
                }
                #expect(subscribers[k].1.matches(expected), "subscriber \(k) after write \(i)")
            }
        }
        let runs = try #require(try stats()?["runs"]?.intValue) - before
        #expect(runs <= writes + 1, "\(runs) runs for \(writes) writes and three subscribers")
    }

    /// A subscription of every index the peer may search follows the catalog: an index made
    /// by `createIndex` joins it (its first documents arrive as a resync), and SIGTERM with a
    /// subscriber connected stops at once rather than waiting out the drain timeout.
    @Test func aNewIndexJoinsASubscriptionOfEveryIndexAndStopIsNotHeldUp() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let initial = Self.initialFilms(20, &rng)
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        try c.send(["id": "all", "op": "subscribe", "query": "", "minIntervalMs": 0])
        var view = View()
        while let frame = try line(c) {
            try view.take(frame)
            if frame["type"] == "done" { break }
        }
        #expect(Set(view.answer.pages.keys) == ["films"])
        let writer = try d.connect()
        #expect(try writer.roundTrip(["id": "c", "op": "createIndex", "index": "notes"]).first?.type == "indexCreated")
        try films.written(writer, ["id": "w", "op": "addDocuments", "index": "notes", "documents": [["objectID": "n1", "text": "hello"]]])
        let expected = try fresh(writer, ["query": ""])
        let deadline = Date().addingTimeInterval(10)
        while !view.matches(expected), Date() < deadline {
            guard let frame = try line(c) else { break }
            try view.take(frame)
        }
        #expect(view.matches(expected), "the new index's page came: \(view.answer.pages.keys.sorted())")
        #expect(view.answer.pages["notes"]?.hits.first?["objectID"] == "n1")
        let stopping = Date()
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 8) != nil)
        #expect(Date().timeIntervalSince(stopping) < 3, "stopped in \(Date().timeIntervalSince(stopping)) s")
    }

    /// Forty subscriptions sent at once on one connection, past its 16 searches in flight:
    /// the later ones wait their turn (pushed back, never refused), and all are answered.
    @Test func aBurstOfSubscriptionsIsPushedBackNotRefused() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let initial = Self.initialFilms(50, &rng)
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        var burst: [UInt8] = []
        for i in 0..<40 {
            burst += JSONWriter.bytes(["id": .string("s\(i)"), "op": "subscribe", "query": "star", "indices": ["films"]]) + [0x0A]
        }
        try c.sendRaw(burst)
        var done = Set<String>()
        while done.count < 40, let f = try line(c) {
            #expect(f["type"] != "error", "\(f)")
            if f["type"] == "done", let id = f["id"]?.stringValue { done.insert(id) }
        }
        #expect(done.count == 40)
    }

    /// A source that cannot tell of its changes (here another fedsearchd's index) is searched
    /// again every `pollIntervalMs` for the subscriptions on it: a write upstream reaches the
    /// subscriber as an update, and `stats` says how the index is kept fresh.
    @Test func aPolledSourceReachesItsSubscribersWithinItsInterval() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let initial = Self.initialFilms(20, &rng)
        let upstream = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { Self.tearDown(upstream, dataDir: dataDir) }
        let d = try DaemonProcess(config: [
            "searchables": [
                "remote": [
                    "backend": "fedsearchd", "socket": .string(upstream.socketPath), "index": "films", "pollIntervalMs": 200,
                    "watch": false,
                ]
            ]
        ])
        defer { d.stop() }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let request: JSONObject = ["query": "", "indices": ["remote"], "params": ["hitsPerPage": 5]]
        var view = try subscribe(c, "polled", request)
        // The first answer's done frame says how each source is kept fresh.
        #expect(view.done?["sources"]?.objectValue?["remote"]?.objectValue?["freshness"] == ["kind": "poll", "intervalMs": 200])
        let local = try d.connect()
        var film = IncrementalWriteTests.film(300, &rng)
        film["votes"] = 1000
        try films.written(try upstream.connect(), ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        let expected = try fresh(local, request)
        #expect(expected.answer.pages["remote"]?.hits.first?["objectID"] == "f300", "the write is visible through the daemon")
        let deadline = Date().addingTimeInterval(5)
        while !view.matches(expected), Date() < deadline {
            guard let frame = try line(c) else { break }
            try view.take(frame)
        }
        #expect(view.matches(expected), "the polled update came")
        let freshness = try local.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?[
            "freshness"]
        #expect(freshness == ["remote": ["kind": "poll", "intervalMs": 200]], "\(String(describing: freshness))")
    }

    /// A fedsearchd source watches its upstream index (`watch`) while it has subscribers: a
    /// write upstream reaches a subscriber of the downstream daemon without polling; the
    /// upstream's watch ends with the last subscription. The `watch` op itself: `watching`,
    /// `changed` per write, refused for an unknown index, ended by `unsubscribe`.
    @Test func aRemoteSourceWatchesItsUpstreamIndex() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let upstream = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": Self.initialFilms(20, &rng)])
        defer { Self.tearDown(upstream, dataDir: dataDir) }
        let writer = try upstream.connect()
        var votes = 1000
        /// A film with more votes than any before it: first of the page.
        func write(_ id: String) throws {
            var film = IncrementalWriteTests.film(0, &rng, id: id)
            votes += 1
            film["votes"] = .number(Double(votes))
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        }
        func upstreamWatches() throws -> JSONValue? {
            try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["watches"]
        }

        // The op, by hand.
        let w = try SocketConnection(path: upstream.socketPath, timeoutSeconds: 10)
        try w.send(["id": "w", "op": "watch", "indices": ["films"]])
        #expect(try line(w) == ["id": "w", "type": "watching", "indices": ["films"]])
        try write("u1")
        #expect(try line(w) == ["id": "w", "type": "changed", "index": "films"])
        try w.send(["id": "x", "op": "watch", "indices": ["films", "nope"]])
        let refused = try line(w)
        #expect(refused?["type"] == "error" && refused?["error"]?.objectValue?["code"] == "unknown_index", "\(String(describing: refused))")
        try w.send(["id": "u", "op": "unsubscribe", "target": "w"])
        #expect(try line(w) == ["id": "u", "type": "unsubscribed", "target": "w"])
        #expect(try upstreamWatches() == 0)

        let d = try DaemonProcess(config: [
            "searchables": ["remote": ["backend": "fedsearchd", "socket": .string(upstream.socketPath), "index": "films"]]
        ])
        defer { d.stop() }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let request: JSONObject = ["query": "", "indices": ["remote"], "params": ["hitsPerPage": 5]]
        var view = try subscribe(c, "pushed", request)
        #expect(
            view.done?["sources"]?.objectValue?["remote"]?.objectValue?["freshness"] == [
                "kind": "push", "via": "upstream", "index": "films",
            ])
        #expect(try poll(seconds: 5) { try upstreamWatches() == 1 }, "the downstream daemon watches upstream")
        let local = try d.connect()
        for id in ["r1", "r2"] {
            try write(id)
            let expected = try fresh(local, request)
            #expect(expected.answer.pages["remote"]?.hits.first?["objectID"] == .string(id))
            let deadline = Date().addingTimeInterval(5)
            while !view.matches(expected), Date() < deadline {
                guard let frame = try line(c) else { break }
                try view.take(frame)
            }
            #expect(view.matches(expected), "\(id): the update came from upstream")
        }
        // The upstream stopped: the source's freshness says its watch is down; started again,
        // the watch is back and a write reaches the subscriber again.
        func freshness() throws -> JSONObject? {
            try local.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["freshness"]?
                .objectValue?["remote"]?.objectValue
        }
        upstream.halt()
        #expect(try poll(seconds: 10) { try freshness()?["problem"] != nil }, "\(String(describing: try? freshness()))")
        try upstream.start()
        #expect(try poll(seconds: 10) { try freshness()?["problem"] == nil }, "\(String(describing: try? freshness()))")
        let again = try upstream.connect()
        var film = IncrementalWriteTests.film(0, &rng, id: "r3")
        votes += 1
        film["votes"] = .number(Double(votes))
        try films.written(again, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        let expected = try fresh(local, request)
        let deadline = Date().addingTimeInterval(5)
        while !view.matches(expected), Date() < deadline {
            guard let frame = try line(c) else { break }
            try view.take(frame)
        }
        #expect(view.matches(expected), "the update came after the upstream's restart")
        try c.send(["id": "u", "op": "unsubscribe", "target": "pushed"])
        #expect(
            try poll(seconds: 5) {
                try again.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["watches"] == 0
            }, "the watch upstream ends with the last subscription")
    }

    /// An upstream that refuses the watch (it allows no subscription): the source's freshness
    /// says why, and its subscriptions are searched again every second instead, so a write
    /// upstream still reaches the subscriber.
    @Test func aRefusedWatchFallsBackToPolling() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["limits"] = ["maxSubscriptions": 0]
        let upstream = try DaemonProcess(config: config, files: ["films.ndjson": Self.initialFilms(20, &rng)])
        defer { Self.tearDown(upstream, dataDir: dataDir) }
        let d = try DaemonProcess(config: [
            "searchables": ["remote": ["backend": "fedsearchd", "socket": .string(upstream.socketPath), "index": "films"]]
        ])
        defer { d.stop() }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let local = try d.connect()
        let request: JSONObject = ["query": "", "indices": ["remote"], "params": ["hitsPerPage": 5]]
        var view = try subscribe(c, "refused", request)
        func problem() throws -> String? {
            try local.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["freshness"]?
                .objectValue?["remote"]?.objectValue?["problem"]?.stringValue
        }
        #expect(try poll(seconds: 10) { try problem()?.contains("too_many_requests") == true }, "\(String(describing: try? problem()))")
        var film = IncrementalWriteTests.film(0, &rng, id: "p1")
        film["votes"] = 100_000
        try films.written(try upstream.connect(), ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        let expected = try fresh(local, request)
        let deadline = Date().addingTimeInterval(5)
        while !view.matches(expected), Date() < deadline {
            guard let frame = try line(c) else { break }
            try view.take(frame)
        }
        #expect(view.matches(expected), "the write came by polling")
        #expect(view.answer.pages["remote"]?.hits.first?["objectID"] == "p1")
    }

    /// `POST /1/federated/subscribe`: the same frames as server-sent events; a write's update
    /// arrives on the open stream and rebuilds a fresh search's answer; closing the stream
    /// ends the subscription.
    @Test func theHTTPStreamSendsTheFirstAnswerThenUpdates() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        let initial = Self.initialFilms(30, &rng)
        let d = try DaemonProcess(config: config, files: ["films.ndjson": initial])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let request: JSONObject = ["query": "", "indices": ["films"], "params": ["hitsPerPage": 5, "facets": ["genre"]]]
        var body = request
        body["minIntervalMs"] = 0
        do {
            let http = try d.http()
            try http.send("POST", "/1/federated/subscribe", body: JSONWriter.string(.object(body)))
            let head = try http.readHead()
            #expect(head.status == 200)
            #expect(head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            let writer = try d.connect()
            var view = View()
            var expected: View?
            _ = try http.readEvents { event in
                #expect(event["id"] == "live", "\(event)")
                try view.take(event)
                if event["type"] == "done" {
                    var film = IncrementalWriteTests.film(400, &rng)
                    film["votes"] = 1000
                    try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
                    expected = try fresh(writer, request)
                }
                // The index's update and the merged list's.
                return view.answer.seq < 2
            }
            let e = try #require(expected)
            #expect(view.matches(e), "the update came over the stream: \(view.answer.pages) against \(e)")
            #expect(
                try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"] == 1)
        }
        // The client went: its subscription goes.
        let c = try d.connect()
        #expect(
            try poll(seconds: 5) {
                try c.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"] == 0
            })
        // A browser's EventSource GETs, the request in `?request=`.
        let encoded = try #require(JSONWriter.string(.object(request)).addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let browser = try d.http()
        try browser.send("GET", "/1/federated/subscribe?request=\(encoded)")
        #expect(try browser.readHead().status == 200)
        let firstAnswer = try browser.readEvents { $0["type"] != "done" }
        #expect(firstAnswer.map { $0["type"]?.stringValue ?? "" } == ["results", "merged", "done"], "\(firstAnswer)")
        // A refused one gets its status, as /1/federated.
        let unknown = try d.http().request("POST", "/1/federated/subscribe", json: ["query": "x", "indices": ["nope"]])
        #expect(unknown.status == 404 && unknown.json["code"] == "unknown_index", "\(unknown.text)")
        // SIGTERM with the browser's stream open: the stream ends, and the daemon stops at once.
        let stopping = Date()
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 8) != nil)
        #expect(Date().timeIntervalSince(stopping) < 3, "stopped in \(Date().timeIntervalSince(stopping)) s")
        withExtendedLifetime(browser) {}
    }

    /// `Last-Event-ID`: a client that comes back to the stream it had gets only what changed
    /// while it was away, as updates continuing its `seq`; one that had missed a frame gets a
    /// `resync` of every page; an unknown id gets the whole answer again.
    @Test func aReconnectingClientResumesWithLastEventID() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        let d = try DaemonProcess(config: config, files: ["films.ndjson": Self.initialFilms(30, &rng)])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let request: JSONObject = ["query": "", "indices": ["films"], "params": ["hitsPerPage": 5, "facets": ["genre"]]]
        var body = request
        body["minIntervalMs"] = 0
        let writer = try d.connect()
        /// A film first of the page (or, `low`, last of the index: only the counts change).
        func writeTopFilm(_ id: String, low: Bool = false) throws {
            var film = IncrementalWriteTests.film(0, &rng, id: id)
            film["votes"] = .number(low ? -1 : Double(1000 + Int.random(in: 0...1000, using: &rng)))
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        }
        func subscribe(lastEventID: String?) throws -> HTTPTestClient {
            let http = try d.http()
            try http.send(
                "POST", "/1/federated/subscribe", body: JSONWriter.string(.object(body)),
                headers: lastEventID.map { ["Last-Event-ID": $0] } ?? [:])
            #expect(try http.readHead().status == 200)
            return http
        }
        /// Waits for the parked subscription: the stats say none is open.
        func gone() throws {
            #expect(
                try poll(seconds: 5) {
                    try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"]
                        == 0
                })
        }

        var view = View()
        var token = ""
        do {
            let http = try subscribe(lastEventID: nil)
            _ = try http.readEvents { event in
                try view.take(event)
                return event["type"] != "done"
            }
            let first = try #require(http.lastEventID)
            #expect(first.hasSuffix(".0"), "\(first)")
            token = String(first.dropLast(2))
            try writeTopFilm("a1")
            _ = try http.readEvents { event in
                try view.take(event)
                return view.answer.seq < 2
            }
            #expect(http.lastEventID == "\(token).2")
        }
        try gone()
        // Away: a film written, last of the index. Back with the last id taken: an update of
        // the counts, from seq 3, and nothing of the first answer.
        try writeTopFilm("a2", low: true)
        var expected = try fresh(writer, request)
        do {
            let http = try subscribe(lastEventID: "\(token).2")
            var types: [String] = []
            _ = try http.readEvents { event in
                types.append(event["type"]?.stringValue ?? "")
                try view.take(event)
                return !view.matches(expected)
            }
            #expect(Set(types) == ["update"], "\(types)")
            #expect(view.matches(expected))
            #expect(view.answer.seq >= 3 && http.lastEventID == "\(token).\(view.answer.seq)")
            // It goes on as a subscription.
            try writeTopFilm("a3")
            expected = try fresh(writer, request)
            _ = try http.readEvents { event in
                try view.take(event)
                return !view.matches(expected)
            }
            #expect(view.matches(expected))
        }
        try gone()
        // Back with an older id (a frame was missed): every page whole, from the seq after it.
        try writeTopFilm("a4")
        expected = try fresh(writer, request)
        do {
            let http = try subscribe(lastEventID: "\(token).1")
            let events = try http.readEvents { $0["merged"] != true }
            #expect(events.map { $0["type"]?.stringValue ?? "" } == ["resync", "resync"], "\(events)")
            #expect(events.map { $0["seq"]?.intValue ?? 0 } == [2, 3])
            let page = try #require(events.first?["results"]?.objectValue)
            #expect(LivePage(answer: page).sameAnswer(as: expected.answer.pages["films"]!))
        }
        try gone()
        // Back with the last id, nothing new meanwhile: the head at once (no frame to carry
        // it), then the next write's update, seq 4.
        do {
            let http = try subscribe(lastEventID: "\(token).3")
            try writeTopFilm("a5")
            let next = try http.readEvents { _ in false }
            #expect(next.first?["seq"] == 4 && next.first?["type"] != "results", "\(next)")
        }
        // A seq past the last one sent (a made-up id): the whole answer, as a new subscription,
        // and so for an id the daemon does not know.
        for id in ["\(token).\(Int.max)", "0123456789abcdef.4"] {
            try gone()
            let other = try subscribe(lastEventID: id)
            let answer = try other.readEvents { $0["type"] != "done" }
            #expect(answer.map { $0["type"]?.stringValue ?? "" } == ["results", "merged", "done"], "\(id): \(answer)")
        }
    }

    /// A secured API key's filters hold for every update of its subscription: a film outside
    /// them never shows, one inside does.
    @Test(.enabled(if: AlgoliaModelTests.clientInstalled, "needs the algoliasearch Python client in .build/python (make deps installs it)"))
    func aSecuredKeySubscriptionSeesOnlyWhatItsFiltersAllow() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = films.config(dataDir: dataDir)
        config["http"] = [
            "listen": .string("127.0.0.1:\(try freeTCPPort())"), "keys": [["value": ["env": "FEDSEARCH_TEST_KEY"], "acl": ["search"]]],
        ]
        let d = try DaemonProcess(
            config: config, files: ["films.ndjson": Self.initialFilms(40, &rng)], environment: ["FEDSEARCH_TEST_KEY": "live-parent-key"])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let make =
            "from algoliasearch.search.client import SearchClientSync\n"
            + "c = SearchClientSync('fedsearchd', 'live-parent-key')\n"
            + "print(c.generate_secured_api_key('live-parent-key', {'filters': 'genre:drama', 'restrictIndices': ['films']}))"
        let secured = try runProgram(AlgoliaModelTests.python, ["-c", make]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!secured.isEmpty)
        let http = try d.http()
        try http.send(
            "POST", "/1/federated/subscribe",
            body: JSONWriter.string(["query": "", "indices": ["films"], "params": ["hitsPerPage": 5], "minIntervalMs": 0]),
            headers: ["X-Algolia-API-Key": secured, "X-Algolia-Application-Id": "fedsearchd"])
        #expect(try http.readHead().status == 200)
        var view = View()
        _ = try http.readEvents { event in
            try view.take(event)
            return event["type"] != "done"
        }
        #expect(view.answer.pages["films"]?.hits.allSatisfy { $0["genre"] == "drama" } == true, "\(view.answer.pages)")
        let writer = try d.connect()
        for (id, genre) in [("c1", "comedy"), ("d1", "drama")] {
            var film = IncrementalWriteTests.film(0, &rng, id: id)
            (film["genre"], film["votes"]) = (.string(genre), 5000)
            try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
        }
        _ = try http.readEvents { event in
            try view.take(event)
            return view.answer.pages["films"]?.hits.first?["objectID"] != "d1"
        }
        let hits = view.answer.pages["films"]?.hits ?? []
        #expect(hits.first?["objectID"] == "d1" && hits.allSatisfy { $0["genre"] == "drama" }, "\(hits)")
        // Another key may not subscribe at all.
        let refused = try d.http().request(
            "POST", "/1/federated/subscribe", json: ["query": "", "indices": ["films"]], headers: ["X-Algolia-API-Key": "wrong"])
        #expect(refused.status == 403, "\(refused.text)")
    }

    @Test func closingTheConnectionEndsItsSubscriptions() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": ""])
        defer { Self.tearDown(d, dataDir: dataDir) }
        let writer = try d.connect()
        do {
            let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
            for id in ["a", "b"] {
                try c.send(["id": .string(id), "op": "subscribe", "query": "", "indices": ["films"]])
                while let f = try line(c), f["type"] != "done" {}
            }
            let open = try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"]
            #expect(open == 2)
        }
        #expect(
            try poll(seconds: 5) {
                try writer.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"] == 0
            })
    }
}
