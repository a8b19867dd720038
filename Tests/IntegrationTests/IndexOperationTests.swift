import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// deleteBy, setSettings/getSettings, createIndex/deleteIndex and group commit, against the
/// real daemon on real SQLite files, across restarts.
@Suite(.serialized)
struct IndexOperationTests {
    static let books = """
        {"objectID":"b1","title":"The Hobbit","genre":"fantasy","year":1937}
        {"objectID":"b2","title":"Dune","genre":"science fiction","year":1965}
        {"objectID":"b3","title":"Earthsea","genre":"fantasy","year":1968}
        """

    func config(_ dataDir: String) -> JSONObject {
        [
            "dataDir": .string(dataDir),
            "searchables": [
                "books": [
                    "data": "books.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre", "year"],
                ]
            ],
        ]
    }

    func start(_ dataDir: String) throws -> DaemonProcess {
        try DaemonProcess(config: config(dataDir), files: ["books.ndjson": Self.books])
    }

    func ids(_ c: SocketConnection, _ query: String, index: String = "books", params: JSONObject = [:]) throws -> [String] {
        var p = params
        p["hitsPerPage"] = 1000
        for f in try c.roundTrip(["id": "s", "query": .string(query), "indices": [.string(index)], "params": .object(p)]) {
            if case .results(_, _, let r) = f { return r.hits.map(\.objectID) }
        }
        return []
    }

    func written(_ frames: [Frame]) -> JSONObject? {
        if case .info(_, "written", let p)? = frames.first { return p }
        Issue.record("expected written, got \(frames)")
        return nil
    }

    @Test func deleteByRemovesWhatTheFilterMatchesAtomically() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try start(dataDir)
        defer { d.stop() }
        let c = try d.connect()
        let ack = written(
            try c.roundTrip(["id": "x", "op": "deleteBy", "index": "books", "params": ["filters": "genre:fantasy AND year < 1950"]]))
        #expect(ack?["documents"] == 2)
        #expect(try ids(c, "").sorted() == ["b2", "b3"])
        // Filters only, and at least one; a bad filter deletes nothing.
        let noFilter = try c.roundTrip(["id": "e1", "op": "deleteBy", "index": "books", "params": [:]])
        #expect(errorCode(noFilter.first) == "missing_field")
        let query = try c.roundTrip(["id": "e2", "op": "deleteBy", "index": "books", "params": ["query": "dune"]])
        #expect(errorCode(query.first) == "unknown_field")
        // As in Algolia, a facet filter on an attribute the index does not facet matches nothing.
        let otherAttribute = written(
            try c.roundTrip(["id": "e3", "op": "deleteBy", "index": "books", "params": ["filters": "title:Dune"]]))
        #expect(otherAttribute?["deleted"] == 0)
        #expect(otherAttribute?["documents"] == 2)
        let syntax = try c.roundTrip(["id": "e4", "op": "deleteBy", "index": "books", "params": ["filters": "genre:"]])
        #expect(errorCode(syntax.first) == "invalid_filter")
        #expect(try ids(c, "").sorted() == ["b2", "b3"], "refused deleteBy requests deleted nothing")
        let numeric = written(
            try c.roundTrip(["id": "n", "op": "deleteBy", "index": "books", "params": ["numericFilters": ["year >= 1960"]]]))
        #expect(numeric?["documents"] == 0)
        // The writer's counters: the initial import and three deleteBy batches applied (one
        // deleting nothing), and the refused requests never reached it (they failed on decoding).
        let statsFrames = try c.roundTrip(["id": "st", "op": "stats"])
        let books = try #require(statsFrames.first?.infoPayload("stats")?["writes"]?.objectValue?["books"]?.objectValue, "no stats.writes")
        #expect(books["seq"] == 4)
        #expect(books["documents"] == 0)
        #expect(books["batches"] == 3, "the initial import happened before the writer existed")
        #expect(books["refused"] == 0, "every refused request failed on decoding")
    }

    /// Settings stored that cannot be applied now (an earlier version took a synonym group past
    /// today's limit) do not stop a restart: the index serves with its config's settings, the
    /// log and `stats` say why, and a settings change that applies clears it.
    @Test func storedSettingsThatCannotApplyDoNotStopARestart() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        // What an earlier version could store: 1,001 words in one synonym group.
        let words = (0...1000).map { "\"w\($0)\"" }.joined(separator: ",")
        let overrides = "{\"synonyms\": [[\(words)]], \"customRanking\": [\"desc(year)\"]}"
        let script =
            "import sqlite3,sys; c = sqlite3.connect(sys.argv[1]); "
            + "c.execute('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', ('settingsOverrides', sys.argv[2])); c.commit()"
        let wrote = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, "\(dataDir)/books.sqlite", overrides])
        #expect(wrote.status == 0, "\(wrote.err)")
        d = try start(dataDir)
        defer { d.stop() }
        let c = try d.connect()
        #expect(try ids(c, "").count == 3, "the index serves")
        let stats = try pollStats(c) { _ in true }
        let problem = stats?["writes"]?.objectValue?["books"]?.objectValue?["settingsProblem"]?.stringValue ?? ""
        #expect(problem.contains("synonyms[0]: 1001 words; at most 1000"), "\(problem)")
        _ = written(try c.roundTrip(["id": "s", "op": "setSettings", "index": "books", "settings": ["synonyms": .null]]))
        #expect(try ids(c, "") == ["b3", "b2", "b1"], "the stored customRanking applies again")
        let after = try pollStats(c) { _ in true }
        #expect(after?["writes"]?.objectValue?["books"]?.objectValue?["settingsProblem"] == .null)
    }

    @Test func settingsAreStoredReindexedAndKeptAcrossRestarts() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        var c = try d.connect()
        #expect(try ids(c, "fantasy").isEmpty, "genre is not searchable in the config")
        let ack = written(
            try c.roundTrip([
                "id": "s", "op": "setSettings", "index": "books",
                "settings": ["searchableAttributes": ["title", "genre"], "customRanking": ["desc(year)"]],
            ]))
        #expect(ack?["documents"] == 3)
        #expect(try ids(c, "fantasy") == ["b3", "b1"], "reindexed: genre searchable, newest first")
        let bad = try c.roundTrip(["id": "b", "op": "setSettings", "index": "books", "settings": ["customRanking": ["sideways(year)"]]])
        let e = try #require(bad.first?.errorValue, "\(bad)").error
        #expect(e.code.rawValue == "invalid_field")
        #expect(e.message.contains("settings.customRanking[0]"))
        let unknown = try c.roundTrip(["id": "u", "op": "setSettings", "index": "books", "settings": ["colour": "red"]])
        #expect(errorCode(unknown.first) == "unknown_field")
        let got = try c.roundTrip(["id": "g", "op": "getSettings", "index": "books"])
        let p = try #require(got.first?.infoPayload("settings"), "\(got)")
        #expect(p["settings"]?.objectValue?["searchableAttributes"] == ["title", "genre"])
        #expect(p["settings"]?.objectValue?["attributesForFaceting"] == ["genre", "year"], "config settings not overridden stay")
        #expect(p["overrides"]?.objectValue?["customRanking"] == ["desc(year)"])
        // A restart keeps the stored settings over the config's.
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(dataDir)
        defer { d.stop() }
        c = try d.connect()
        #expect(try ids(c, "fantasy") == ["b3", "b1"])
        // null resets a key to the config's value.
        _ = written(try c.roundTrip(["id": "r", "op": "setSettings", "index": "books", "settings": ["searchableAttributes": .null]]))
        #expect(try ids(c, "fantasy").isEmpty)
        #expect(try ids(c, "").count == 3)
    }

    @Test func createdIndicesTakeWritesSurviveRestartAndReloadAndCanBeDeleted() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        var c = try d.connect()
        let created = try c.roundTrip([
            "id": "c", "op": "createIndex", "index": "notes",
            "settings": ["searchableAttributes": ["text"], "attributesForFaceting": ["tag"]],
        ])
        #expect(created.first?.type == "indexCreated")
        #expect(errorCode(try c.roundTrip(["id": "c2", "op": "createIndex", "index": "notes"]).first) == "index_exists")
        #expect(errorCode(try c.roundTrip(["id": "c3", "op": "createIndex", "index": "books"]).first) == "index_exists")
        #expect(errorCode(try c.roundTrip(["id": "c4", "op": "createIndex", "index": "../escape"]).first) == "invalid_field")
        #expect(
            errorCode(try c.roundTrip(["id": "c5", "op": "createIndex", "index": "x", "settings": ["nope": 1]]).first) == "unknown_field")
        _ = written(
            try c.roundTrip([
                "id": "w", "op": "addDocuments", "index": "notes",
                "documents": [
                    ["objectID": "n1", "text": "buy milk", "tag": "home"], ["objectID": "n2", "text": "ship release", "tag": "work"],
                ],
            ]))
        #expect(try ids(c, "milk", index: "notes") == ["n1"])
        #expect(try ids(c, "", index: "notes", params: ["filters": "tag:work"]) == ["n2"])
        // A reload keeps it; so does a restart.
        #expect(try c.roundTrip(["id": "r", "op": "reload"]).first?.type == "reload")
        #expect(try ids(c, "milk", index: "notes") == ["n1"])
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(dataDir)
        defer { d.stop() }
        c = try d.connect()
        #expect(try ids(c, "release", index: "notes") == ["n2"])
        let indices = try c.roundTrip(["id": "i", "op": "indices"])
        let ip = try #require(indices.first?.infoPayload(), "\(indices)")
        #expect(ip["indices"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["books", "notes"])
        let entries = ip["indices"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(entries.map { $0["writable"] } == [true, true])
        #expect(entries.map { $0["createdBy"] } == [nil, "createIndex"])
        // Config indices are not deleted over the socket; created ones are, with their file.
        #expect(errorCode(try c.roundTrip(["id": "d1", "op": "deleteIndex", "index": "books"]).first) == "index_in_config")
        #expect(try c.roundTrip(["id": "d2", "op": "deleteIndex", "index": "notes"]).first?.type == "indexDeleted")
        #expect(!FileManager.default.fileExists(atPath: "\(dataDir)/notes.sqlite"))
        #expect(errorCode(try c.roundTrip(["id": "s", "query": "", "indices": ["notes"]]).first) == "unknown_index")
        #expect(
            try c.roundTrip(["id": "c6", "op": "createIndex", "index": "notes"]).first?.type == "indexCreated", "the name is free again")
        #expect(try ids(c, "", index: "notes").isEmpty)
    }

    /// Many pipelined batches of every kind from two connections are grouped by the writer;
    /// the live index must then agree with a fresh rebuild from the store (a restart).
    @Test func groupCommitMatchesAFreshRebuild() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        let a = try d.connect()
        let b = try d.connect()
        var rng = SystemRandomNumberGenerator()
        var sent = 0
        for i in 0..<120 {
            let c = i % 2 == 0 ? a : b
            let id = JSONValue.string("w\(i)")
            let n = Int.random(in: 0..<40, using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                let docs: [JSONValue] = (0..<5).map { k in
                    [
                        "objectID": .string("d\((n + k) % 40)"), "title": .string("title \(i) \(k)"),
                        "genre": .string(k % 2 == 0 ? "even" : "odd"),
                        "year": .number(Double(1900 + i)),
                    ]
                }
                try c.send(["id": id, "op": "addDocuments", "index": "books", "documents": .array(docs)])
            case 5, 6:
                try c.send([
                    "id": id, "op": "partialUpdateDocuments", "index": "books",
                    "documents": [
                        ["objectID": .string("d\(n)"), "genre": .string("patched \(i)")], ["objectID": .string("d\(n)"), "note": "twice"],
                    ],
                ])
            case 7:
                try c.send([
                    "id": id, "op": "deleteDocuments", "index": "books", "objectIDs": [.string("d\(n)"), .string("d\((n + 1) % 40)")],
                ])
            case 8:
                try c.send([
                    "id": id, "op": "deleteBy", "index": "books", "params": ["numericFilters": [.string("year < \(1900 + i / 2)")]],
                ])
            default:
                // A bad batch in the middle: refused whole, the others unaffected.
                try c.send(["id": id, "op": "addDocuments", "index": "books", "documents": [["objectID": "ok"], ["title": "no id"]]])
            }
            sent += 1
        }
        var answered = 0
        var refused = 0
        var sequences: [Int] = []
        for c in [a, b] {
            for _ in 0..<(sent / 2) {
                guard let f = try c.readFrame() else { break }
                answered += 1
                if case .info(_, "written", let p) = f, let s = p["seq"]?.intValue { sequences.append(s) }
                if case .error(_, _, let e) = f, e.code.rawValue == "invalid_document" { refused += 1 }
            }
        }
        #expect(answered == sent)
        #expect(Set(sequences).count == sequences.count, "every batch has its own sequence number")
        #expect(sequences.count + refused == sent)
        let queries = ["", "title", "title 7", "patched", "even"]
        let filters = ["", "genre:odd", "year > 1950"]
        var live: [[String]] = []
        for q in queries { for f in filters { live.append(try ids(a, q, params: f.isEmpty ? [:] : ["filters": .string(f)])) } }
        let got = try a.roundTrip([
            "id": "g", "op": "getDocuments", "index": "books", "objectIDs": .array((0..<40).map { .string("d\($0)") }),
        ])
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(dataDir)
        defer { d.stop() }
        let c = try d.connect()
        var rebuilt: [[String]] = []
        for q in queries { for f in filters { rebuilt.append(try ids(c, q, params: f.isEmpty ? [:] : ["filters": .string(f)])) } }
        #expect(live.map { $0.sorted() } == rebuilt.map { $0.sorted() })
        #expect(
            try c.roundTrip(["id": "g", "op": "getDocuments", "index": "books", "objectIDs": .array((0..<40).map { .string("d\($0)") })])
                == got)
    }

    /// A big batch is decoded off the loop; the small requests pipelined after it must still
    /// be applied after it, in the order sent.
    @Test func bigBatchesKeepTheirPlaceInLine() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try start(dataDir)
        defer { d.stop() }
        let c = try d.connect()
        let padding = String(repeating: "lorem ipsum ", count: 20)
        let big: [JSONValue] = (0..<500).map { ["objectID": .string("x\($0)"), "title": .string("bulk \($0) \(padding)")] }
        #expect(JSONWriter.bytes(.array(big)).count > 100_000, "over the off-loop threshold")
        try c.send(["id": "big", "op": "addDocuments", "index": "books", "documents": .array(big)])
        try c.send(["id": "del", "op": "deleteDocuments", "index": "books", "objectIDs": ["x0", "x1"]])
        try c.send(["id": "upd", "op": "partialUpdateDocuments", "index": "books", "documents": [["objectID": "x2", "title": "changed"]]])
        var order: [String] = []
        while order.count < 3, let f = try c.readFrame() { if let id = f.id { order.append(id) } }
        #expect(order == ["big", "del", "upd"])
        let got = try c.roundTrip(["id": "g", "op": "getDocuments", "index": "books", "objectIDs": ["x0", "x2", "x3"]])
        let p = try #require(got.first?.infoPayload(), "\(got)")
        let docs = p["results"]?.arrayValue ?? []
        #expect(docs.first == .null)
        #expect(docs.dropFirst().first?.objectValue?["title"] == "changed")
        #expect(docs.last?.objectValue?["objectID"] == "x3")
    }

    /// A reload that changes a durable index's settings keeps the same store and index: no
    /// write acknowledged around it is lost, and sequence numbers keep growing.
    @Test func reloadingADurableIndexKeepsItsWrites() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        let c = try d.connect()
        var sequences: [Int] = []
        for i in 0..<3 {
            let w = written(
                try c.roundTrip([
                    "id": "w", "op": "addDocuments", "index": "books",
                    "documents": [["objectID": .string("r\(i)"), "title": .string("reload \(i)"), "year": 2000]],
                ]))
            sequences.append(w?["seq"]?.intValue ?? 0)
        }
        var changed = config(dataDir)
        changed["searchables"] = [
            "books": [
                "data": "books.ndjson", "searchableAttributes": ["title", "genre"], "attributesForFaceting": ["genre", "year"],
                "customRanking": ["asc(year)"], "timeoutMs": 900,
            ]
        ]
        try d.rewriteConfig(changed)
        // Batches in flight across the reload.
        for i in 3..<6 {
            try c.send([
                "id": .string("w\(i)"), "op": "addDocuments", "index": "books",
                "documents": [["objectID": .string("r\(i)"), "title": .string("reload \(i)"), "year": 2000]],
            ])
        }
        try c.send(["id": "reload", "op": "reload"])
        var reloaded = false
        while sequences.count < 6 || !reloaded, let f = try c.readFrame() {
            if f.type == "written", let s = f.payloadSequence { sequences.append(s) }
            if f.type == "reload" { reloaded = true }
            if case .error(_, _, let e) = f {
                Issue.record("\(e)")
                break
            }
        }
        for i in 6..<8 {
            let w = written(
                try c.roundTrip([
                    "id": "w", "op": "addDocuments", "index": "books",
                    "documents": [["objectID": .string("r\(i)"), "title": .string("reload \(i)"), "year": 2000]],
                ]))
            sequences.append(w?["seq"]?.intValue ?? 0)
        }
        #expect(sequences == Array(2...9), "one sequence, growing, across the reload")
        #expect(try ids(c, "reload").count == 8)
        #expect(try ids(c, "fantasy") == ["b1", "b3"], "the reloaded settings apply: genre searchable, oldest first")
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try DaemonProcess(config: changed, files: ["books.ndjson": Self.books])
        defer { d.stop() }
        #expect(try ids(try d.connect(), "reload").count == 8)
    }

    /// A reload that fails changes nothing, not even the settings of a durable index it
    /// would have kept.
    @Test func aFailedReloadLeavesDurableSettingsAlone() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try start(dataDir)
        defer { d.stop() }
        let c = try d.connect()
        #expect(try ids(c, "fantasy").isEmpty)
        var broken = config(dataDir)
        broken["searchables"] = [
            "books": ["data": "books.ndjson", "searchableAttributes": ["title", "genre"], "attributesForFaceting": ["genre", "year"]],
            "other": ["data": "missing.ndjson"],
        ]
        try d.rewriteConfig(broken)
        let reply = try c.roundTrip(["id": "r", "op": "reload"])
        #expect(errorCode(reply.first) == "reload_failed", "\(reply)")
        // Give a wrongly queued reconfigure time to run before looking.
        _ = written(try c.roundTrip(["id": "w", "op": "addDocuments", "index": "books", "documents": [["objectID": "z", "title": "zz"]]]))
        #expect(try ids(c, "fantasy").isEmpty, "the settings of the failed config were not applied")
    }

    /// A client that pipelines write batches faster than the writer applies them is not read
    /// beyond `Connection.maxQueuedWrites` unanswered batches: the daemon never holds more.
    @Test func pipelinedWritesAreHeldBackAtTheQueueLimit() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        // A 30,000-document index: each group's rebuild takes long enough for a queue to form.
        let big = (0..<30_000).map { #"{"objectID":"x\#($0)","title":"word\#($0 % 977) other\#($0 % 31)"}"# }.joined(separator: "\n")
        let d = try DaemonProcess(
            config: ["dataDir": .string(dataDir), "searchables": ["big": ["data": "big.ndjson", "searchableAttributes": ["title"]]]],
            files: ["big.ndjson": big])
        defer { d.stop() }
        // Reads wait for rebuilds of 30,000 documents: a generous timeout on a loaded machine.
        let writer = try d.connect(timeoutSeconds: 120)
        let observer = try d.connect(timeoutSeconds: 120)
        let total = 400
        // All sent at once (about 40 KB: the socket buffers hold them while the daemon waits).
        for i in 0..<total {
            try writer.send([
                "id": .string("w\(i)"), "op": "addDocuments", "index": "big",
                "documents": [["objectID": .string("n\(i)"), "title": "new"]],
            ])
        }
        var maxQueued = 0
        var answered = 0
        while answered < total {
            if case .info(_, "stats", let p)? = try observer.roundTrip(["id": "s", "op": "stats"]).first,
                let q = p["writes"]?.objectValue?["big"]?.objectValue?["queued"]?.intValue
            {
                maxQueued = max(maxQueued, q)
            }
            // Drain what has been answered so far without blocking for long.
            while answered < total, let f = try writer.readFrame() {
                if f.type == "written" { answered += 1 }
                if answered % 50 == 0 { break }
            }
        }
        #expect(answered == total)
        #expect(maxQueued > 0, "a queue formed (the test would prove nothing otherwise)")
        #expect(maxQueued <= 64, "queued \(maxQueued)")
    }

    /// Answers to writes are not lost when the client half-closes, when the daemon drains,
    /// or when the index is deleted right after.
    @Test func writeAnswersArriveAcrossHalfCloseDrainAndDelete() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(dataDir)
        let half = try d.connect()
        try half.send(["id": "h", "op": "addDocuments", "index": "books", "documents": [["objectID": "h1", "title": "half closed"]]])
        half.finishSending()
        #expect(try half.readFrame()?.type == "written")
        let admin = try d.connect()
        #expect(try admin.roundTrip(["id": "c", "op": "createIndex", "index": "tmp"]).first?.type == "indexCreated")
        try admin.send(["id": "w", "op": "addDocuments", "index": "tmp", "documents": [["objectID": "t1"]]])
        try admin.send(["id": "x", "op": "deleteIndex", "index": "tmp"])
        #expect(try admin.readFrame()?.type == "written", "the write queued before the delete is applied and answered")
        #expect(try admin.readFrame()?.type == "indexDeleted")
        // SIGTERM right after a batch is sent: it is answered, then the daemon exits.
        let c = try d.connect()
        let big: [JSONValue] = (0..<2000).map { ["objectID": .string("d\($0)"), "title": .string("drained \($0) with some more words")] }
        try c.send(["id": "big", "op": "addDocuments", "index": "books", "documents": .array(big)])
        // Not a sleep: once the ping sent after it is answered, the daemon has read the batch
        // whole and queued it (a batch still half read at SIGTERM would leave the connection
        // idle, closed by the drain).
        let early = try barrier(c)
        d.signal(SIGTERM)
        #expect(try collect(c, id: "big", already: early).map(\.type) == ["written"])
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(dataDir)
        defer { d.stop() }
        let after = try d.connect()
        var nbHits = 0
        for f in try after.roundTrip(["id": "n", "query": "drained", "indices": ["books"], "params": ["hitsPerPage": 0]]) {
            if case .results(_, _, let r) = f { nbHits = r.nbHits }
        }
        #expect(nbHits == 2000, "the batch answered before the exit is stored whole")
        #expect(try ids(after, "half") == ["h1"])
    }
}

extension Frame {
    /// The `seq` of a `written` frame.
    var payloadSequence: Int? {
        if case .info(_, _, let p) = self { return p["seq"]?.intValue }
        return nil
    }
}
