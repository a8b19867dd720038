import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// Durable writes on an embedded index with a `dataDir`: acknowledged batches are searchable at
/// once on the same connection, survive restarts (and kill -9), bad batches are refused whole.
@Suite(.serialized)
struct WriteTests {
    static let initial = """
        {"objectID":"b1","title":"The Hobbit","genre":"fantasy"}
        {"objectID":"b2","title":"Dune","genre":"science fiction"}
        """

    func config(dataDir: String) -> JSONObject {
        [
            "dataDir": .string(dataDir),
            "searchables": ["books": ["data": "books.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]]],
        ]
    }

    func hits(_ c: SocketConnection, _ query: String) throws -> [String] {
        for f in try c.roundTrip(["id": "s", "query": .string(query), "indices": ["books"]]) {
            if case .results(_, _, let r) = f { return r.hits.map(\.objectID).sorted() }
        }
        return []
    }

    /// Each index has a writer of its own: a write to one index is acknowledged while another
    /// index rebuilds for a settings change (with one writer for all, it waited behind it).
    @Test func anIndexsRebuildDoesNotHoldUpAnotherIndexsWrites() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let words = ["river", "stone", "harbor", "lantern", "meadow", "copper", "willow", "ember", "falcon", "quartz"]
        let big = (0..<20_000).map { i in
            "{\"objectID\":\"\(i)\",\"title\":\"\((0..<12).map { words[($0 * 7 + i) % words.count] + String(i % 97) }.joined(separator: " "))\",\"n\":\(i)}"
        }.joined(separator: "\n")
        let config: JSONObject = [
            "dataDir": .string(dataDir),
            "searchables": [
                "big": ["data": "big.ndjson", "searchableAttributes": ["title"]],
                "small": ["data": "small.ndjson", "searchableAttributes": ["title"]],
            ],
        ]
        let d = try DaemonProcess(config: config, files: ["big.ndjson": big, "small.ndjson": Self.initial])
        defer { d.stop() }
        let rebuilding = try d.connect()
        let writing = try d.connect()
        let start = Date()
        try rebuilding.send(["id": "s", "op": "setSettings", "index": "big", "settings": ["searchableAttributes": ["title", "n"]]])
        let early = try barrier(rebuilding)  // once the pong is back, the rebuild is queued at big's writer
        let ack = try writing.roundTrip([
            "id": "w", "op": "addDocuments", "index": "small", "documents": [["objectID": "b9", "title": "Emma"]],
        ])
        let smallDone = Date().timeIntervalSince(start)
        try #require(ack.first?.infoPayload("written") != nil, "\(ack)")
        let settings = try early.first ?? rebuilding.readFrame()
        let bigDone = Date().timeIntervalSince(start)
        try #require(settings?.infoPayload("written") != nil, "\(String(describing: settings))")
        #expect(smallDone < bigDone, "the small index's write (\(smallDone) s) waited for the big one's rebuild (\(bigDone) s)")
    }

    @Test func writesAreVisibleAtOnceAndSurviveRestart() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        var c = try d.connect()
        #expect(try hits(c, "") == ["b1", "b2"])
        let ack = try c.roundTrip([
            "id": "w", "op": "addDocuments", "index": "books",
            "documents": [
                ["objectID": "b3", "title": "Hobbit Holes", "genre": "fantasy"], ["objectID": "b2", "title": "Dune Messiah"],
            ],
        ])
        let p = try #require(ack.first?.infoPayload("written"), "\(ack)")
        #expect(p["seq"] == 2, "the initial import was batch 1")
        #expect(p["documents"] == 3)
        #expect(try hits(c, "hobbit") == ["b1", "b3"], "read-your-writes on the same connection")
        #expect(try hits(c, "messiah") == ["b2"])
        let del = try c.roundTrip(["id": "d", "op": "deleteDocuments", "index": "books", "objectIDs": ["b1"]])
        let dp = try #require(del.first?.infoPayload("written"), "\(del)")
        #expect(dp["seq"] == 3)
        let got = try c.roundTrip(["id": "g", "op": "getDocuments", "index": "books", "objectIDs": ["b1", "b3"]])
        let gp = try #require(got.first?.infoPayload("documents"), "\(got)")
        #expect(gp["results"]?.arrayValue?.first == .null)
        #expect(gp["results"]?.arrayValue?.last?.objectValue?["title"] == "Hobbit Holes")
        // Restart on the same data folder: nothing lost, the data file not imported again.
        let files = d.directory
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: files)
        }
        c = try d.connect()
        #expect(try hits(c, "") == ["b2", "b3"])
        #expect(try hits(c, "messiah") == ["b2"])
    }

    @Test func badBatchesAreRefusedWholeWithEveryProblemListed() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        defer { d.stop() }
        let c = try d.connect()
        let refused = try c.roundTrip([
            "id": "w", "op": "addDocuments", "index": "books",
            "documents": [
                ["objectID": "ok", "title": "Fine"], 42, ["title": "no id"], ["objectID": 7],
                ["objectID": "big", "title": .string(String(repeating: "x", count: 200_000))],
            ],
        ])
        let e = try #require(refused.first?.requestError, "\(refused)")
        #expect(e.code == .invalidDocument)
        for fragment in [
            "4 of 5", "documents[1]: expected an object", "documents[2]: objectID is missing",
            "documents[3]: objectID must be", "documents[4]:",
        ] {
            #expect(e.message.contains(fragment), "\(e.message)")
        }
        #expect(try hits(c, "fine").isEmpty, "nothing of the batch was written")
        // A search-only index and an unknown one.
        #expect(errorCode(try c.roundTrip(["id": "u", "op": "clearIndex", "index": "nope"]).first) == "unknown_index")
    }

    @Test func pipelinedBatchesApplyInOrder() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        defer { d.stop() }
        let c = try d.connect()
        for i in 0..<10 {
            try c.send([
                "id": .string("w\(i)"), "op": "addDocuments", "index": "books",
                "documents": [["objectID": "same", "title": .string("version \(i)")]],
            ])
        }
        var seqs: [Int] = []
        while seqs.count < 10, let f = try c.readFrame() {
            if case .info(_, "written", let p) = f, let n = p["seq"]?.intValue { seqs.append(n) }
        }
        #expect(seqs == Array(2...11))
        #expect(try hits(c, "version") == ["same"])
        let got = try c.roundTrip(["id": "g", "op": "getDocuments", "index": "books", "objectIDs": ["same"]])
        let p = try #require(got.first?.infoPayload(), "\(got)")
        #expect(p["results"]?.arrayValue?.first?.objectValue?["title"] == "version 9")
    }

    @Test func partialUpdatesKeepOtherAttributes() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        defer { d.stop() }
        let c = try d.connect()
        let ack = try c.roundTrip([
            "id": "p", "op": "partialUpdateDocuments", "index": "books",
            "documents": [
                ["objectID": "b1", "title": "The Hobbit, or There and Back Again"], ["objectID": "b9", "title": "New"],
            ],
        ])
        #expect(ack.first?.type == "written")
        let got = try c.roundTrip(["id": "g", "op": "getDocuments", "index": "books", "objectIDs": ["b1", "b9"]])
        let p = try #require(got.first?.infoPayload(), "\(got)")
        let docs = p["results"]?.arrayValue ?? []
        #expect(docs.first?.objectValue?["genre"] == "fantasy", "untouched attributes stay")
        #expect(docs.first?.objectValue?["title"] == "The Hobbit, or There and Back Again")
        #expect(docs.last?.objectValue?["title"] == "New")
        #expect(try hits(c, "again") == ["b1"])
    }

    @Test func indicesWithoutDataDirTakeNoWrites() throws {
        let d = try DaemonProcess(config: ["searchables": ["books": ["data": "books.ndjson"]]], files: ["books.ndjson": Self.initial])
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "w", "op": "clearIndex", "index": "books"])
        #expect(errorCode(frames.first) == "not_writable")
    }

    @Test func acknowledgedBatchesSurviveKillDashNine() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var acknowledged = Set<String>()
        var rng = SystemRandomNumberGenerator()
        for cycle in 0..<10 {
            let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
            let c = try d.connect()
            // Everything acknowledged before is there.
            let stored = try c.roundTrip([
                "id": "g", "op": "getDocuments", "index": "books",
                "objectIDs": .array(acknowledged.sorted().map { .string($0) }),
            ])
            if case .info(_, _, let p)? = stored.first {
                #expect((p["results"]?.arrayValue ?? []).allSatisfy { $0 != .null }, "cycle \(cycle): an acknowledged document is missing")
            } else {
                Issue.record("cycle \(cycle): no documents frame: \(stored)")
            }
            // Send batches and kill the daemon at a random moment.
            // An acknowledgement is matched to its batch by the frame's id.
            var sent: [String: [String]] = [:]
            let batches = Int.random(in: 1...6, using: &rng)
            for b in 0..<batches {
                let ids = (0..<20).map { "c\(cycle)-b\(b)-\($0)" }
                sent["w\(b)"] = ids
                try c.send([
                    "id": .string("w\(b)"), "op": "addDocuments", "index": "books",
                    "documents": .array(ids.map { ["objectID": .string($0), "title": .string("t \($0)")] }),
                ])
                if Bool.random(using: &rng), let f = try c.readFrame(), f.type == "written", let id = f.id {
                    acknowledged.formUnion(sent[id] ?? [])
                }
            }
            kill(d.process.processIdentifier, SIGKILL)
            d.process.waitUntilExit()
            // A batch is all or nothing: check with a fresh daemon below.
        }
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["books.ndjson": Self.initial])
        defer { d.stop() }
        let c = try d.connect()
        let all = try c.roundTrip(["id": "a", "query": "", "indices": ["books"], "params": ["hitsPerPage": 1000]])
        let r = try #require(all.first?.resultsValue, "\(all)")
        let present = Set(r.hits.map(\.objectID))
        #expect(acknowledged.isSubset(of: present))
        // No partial batch: for every batch, all 20 documents or none.
        var byBatch: [String: Int] = [:]
        for id in present where id.hasPrefix("c") { byBatch[String(id[..<id.lastIndex(of: "-")!]), default: 0] += 1 }
        #expect(byBatch.values.allSatisfy { $0 == 20 }, "\(byBatch)")
        #expect(present.contains("b1") && present.contains("b2"), "the initial import happened once and stays")
    }
}

/// The CLI's write commands against a durable daemon.
@Suite(.serialized)
struct WriteCommandTests {
    @Test func importGetDeleteAndAReportedBadBatch() throws {
        let dir = try DaemonProcess.makeDirectory()
        let dataDir = dir.appendingPathComponent("data").path
        let d = try DaemonProcess(
            config: ["dataDir": .string(dataDir), "searchables": ["books": ["searchableAttributes": ["title"]]]])
        defer { d.stop() }
        let file = dir.appendingPathComponent("books.ndjson").path
        let lines = (0..<250).map { #"{"objectID":"n\#($0)","title":"Novel \#($0)"}"# }
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let ok = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", file, "--batch", "100"])
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("imported 250 documents into books in 3 batches"))
        #expect(ok.err.contains("250/250 documents"))
        let got = try runBuilt("fedsearch", ["--socket", d.socketPath, "get", "books", "n7", "missing"])
        #expect(got.out.split(separator: "\n") == [#"{"objectID":"n7","title":"Novel 7"}"#, "null"])
        let del = try runBuilt("fedsearch", ["--socket", d.socketPath, "delete", "books", "n7"])
        #expect(del.status == 0)
        #expect(del.out.contains("now holds 249 documents"))
        // A bad second batch: the first is stored, the report says which batch failed and why.
        let bad = dir.appendingPathComponent("bad.ndjson").path
        try ((0..<3).map { #"{"objectID":"x\#($0)"}"# } + [#"{"title":"no id"}"#]).joined(separator: "\n")
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", bad, "--batch", "2"])
        #expect(refused.status == 1)
        #expect(refused.err.contains("batch 2 (documents 3 to 4) was refused"))
        #expect(refused.err.contains("objectID is missing"))
        #expect(refused.err.contains("every batch before it is stored (2 documents stored in all)"))
        #expect(refused.err.contains("import again from document 3"))
        // A document alone over the line limit is reported before anything is sent for it.
        let huge = dir.appendingPathComponent("huge.ndjson").path
        try ([#"{"objectID":"ok1"}"#, #"{"objectID":"big","text":"\#(String(repeating: "x", count: 3000))"}"#])
            .joined(separator: "\n").write(toFile: huge, atomically: true, encoding: .utf8)
        let tooBig = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", huge, "--batch", "1", "--max-bytes", "1024"])
        #expect(tooBig.status == 1)
        #expect(tooBig.err.contains("document 2 is 3"), "\(tooBig.err)")
        #expect(tooBig.err.contains("(1 documents stored in all)"), "\(tooBig.err)")
        // A document that is not an object is refused before it is sent; the batch before it is stored.
        let scalar = dir.appendingPathComponent("scalar.json").path
        try #"[{"objectID":"n1"}, {"objectID":"n2"}, 7, {"objectID":"n3"}]"#.write(toFile: scalar, atomically: true, encoding: .utf8)
        let notObject = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", scalar, "--batch", "10"])
        #expect(notObject.status == 1)
        #expect(notObject.err.contains("document 3 is number, not an object"), "\(notObject.err)")
        #expect(notObject.err.contains("(2 documents stored in all)"), "\(notObject.err)")
        // NDJSON is read as it is sent: a bad line stops the import there, the documents
        // before it are stored, and the report names the line.
        let broken = dir.appendingPathComponent("broken.ndjson").path
        try ((0..<5).map { #"{"objectID":"s\#($0)"}"# } + ["", #"{"objectID": oops}"#, #"{"objectID":"after"}"#])
            .joined(separator: "\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let stopped = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", broken, "--batch", "2"])
        #expect(stopped.status == 1)
        #expect(stopped.err.contains("line 7 is not valid JSON"), "\(stopped.err)")
        #expect(stopped.err.contains("(5 in all)"), "\(stopped.err)")
        let kept = try runBuilt("fedsearch", ["--socket", d.socketPath, "get", "books", "s4", "after"])
        #expect(kept.out.split(separator: "\n") == [#"{"objectID":"s4"}"#, "null"])
        // A JSON array file works too.
        let array = dir.appendingPathComponent("array.json").path
        try #"[{"objectID":"a1","title":"Array one"}, {"objectID":"a2","title":"Array two"}]"#.write(
            toFile: array, atomically: true, encoding: .utf8)
        let fromArray = try runBuilt("fedsearch", ["--socket", d.socketPath, "import", "books", array])
        #expect(fromArray.status == 0 && fromArray.out.contains("imported 2 documents"), "\(fromArray)")
        // From a pipe (read once, no total): NDJSON and an array.
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        for (source, count) in [(file, 250), (array, 2)] {
            let piped = try runProgram(
                URL(fileURLWithPath: "/bin/sh"),
                [
                    "-c", "cat '\(source)' | '\(fedsearch)' --socket '\(d.socketPath)' import books /dev/stdin --batch 100",
                ])
            #expect(piped.status == 0 && piped.out.contains("imported \(count) documents"), "\(piped)")
        }
    }

    @Test func settingsDeleteByAndIndexCommands() throws {
        let dir = try DaemonProcess.makeDirectory()
        let dataDir = dir.appendingPathComponent("data").path
        let d = try DaemonProcess(config: ["dataDir": .string(dataDir), "searchables": ["books": ["searchableAttributes": ["title"]]]])
        defer { d.stop() }
        let s = ["--socket", d.socketPath]
        let settingsFile = dir.appendingPathComponent("settings.json").path
        try #"{"searchableAttributes": ["title", "tag"], "attributesForFaceting": ["tag"]}"#
            .write(toFile: settingsFile, atomically: true, encoding: .utf8)
        let created = try runBuilt("fedsearch", s + ["create-index", "notes", "--settings", settingsFile])
        #expect(created.status == 0 && created.out.contains("created index notes"), "\(created)")
        let file = dir.appendingPathComponent("notes.ndjson").path
        try (0..<30).map { #"{"objectID":"n\#($0)","title":"note \#($0)","tag":"\#($0 % 3 == 0 ? "old" : "new")"}"# }
            .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try runBuilt("fedsearch", s + ["import", "notes", file, "--batch", "7"]).status == 0)
        let deleted = try runBuilt("fedsearch", s + ["delete-by", "notes", "tag:old"])
        #expect(deleted.status == 0)
        #expect(deleted.out.contains("deleted 10 documents; index notes now holds 20 documents"), "\(deleted)")
        let shown = try runBuilt("fedsearch", s + ["settings", "notes"])
        let parsed = try JSONParser.parse(Array(shown.out.utf8))
        let o = try #require(parsed.objectValue, "\(shown)")
        #expect(o["attributesForFaceting"] == ["tag"])
        try #"{"customRanking": ["bad"]}"#.write(toFile: settingsFile, atomically: true, encoding: .utf8)
        let refused = try runBuilt("fedsearch", s + ["settings", "notes", "--set", settingsFile])
        #expect(refused.status == 1 && refused.err.contains("invalid_field"), "\(refused)")
        let notAllowed = try runBuilt("fedsearch", s + ["delete-index", "books"])
        #expect(notAllowed.status == 1 && notAllowed.err.contains("index_in_config"), "\(notAllowed)")
        let gone = try runBuilt("fedsearch", s + ["delete-index", "notes"])
        #expect(gone.status == 0 && gone.out.contains("deleted index notes"))
    }
}
