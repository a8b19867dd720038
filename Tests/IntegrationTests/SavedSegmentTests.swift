import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchCore
import SocketTestClient

/// Saved segments, with the real daemon: a durable index saves its base segment beside its
/// store, and a restart opens it rather than rebuilding it, serving from it only the documents
/// still stored as they were; a damaged, half-written or stale file costs a rebuild (with a
/// warning), never an answer; a kill -9 while a file is written loses nothing acknowledged.
@Suite(.serialized)
struct SavedSegmentTests {
    let films = IncrementalWriteTests()

    /// The films config, saving bases from 1,000 documents.
    func config(dataDir: String) -> JSONObject {
        var c = films.config(dataDir: dataDir)
        c["segmentFileMinDocuments"] = 1000
        return c
    }

    func segmentFiles(_ c: SocketConnection, until expected: @escaping (JSONObject) -> Bool = { _ in true }) throws -> JSONObject? {
        try pollStats(c, seconds: 20) { p in
            guard let f = p["writes"]?.objectValue?["films"]?.objectValue?["segmentFiles"]?.objectValue else { return false }
            return expected(f)
        }?["writes"]?.objectValue?["films"]?.objectValue?["segmentFiles"]?.objectValue
    }

    func savedFiles(_ dataDir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(dataDir)/films.segments")) ?? []).sorted()
    }

    @Test func aRestartOpensTheSavedBaseAndServesFromItOnlyWhatIsStillStoredAsItWas() throws {
        var rng = SystemRandomNumberGenerator()
        let initial = IncrementalWriteTests.initialFilms(&rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: d.directory)
            try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
        }
        var c = try d.connect()
        let saved = try segmentFiles(c) { $0["files"] == 1 }
        #expect(saved?["files"] == 1, "the base of 3,000 was saved once opened: \(String(describing: saved))")
        #expect((saved?["bytes"]?.intValue ?? 0) > 0)
        #expect(savedFiles(dataDir).count == 1)
        // Replaced, changed and deleted films, and new ones: the saved base is stale for them.
        try films.writeSome(c, &rng)
        _ = try barrier(c)
        let before = try films.answers(c)
        #expect(before[1].contains("star: 0") == false, "the queries match something: \(before[1])")

        d.halt()
        try d.start()
        c = try d.connect()
        let opened = try #require(try segmentFiles(c))
        let fromFiles = opened["openedFromFiles"]?.intValue ?? 0
        let built = opened["openedBuilt"]?.intValue ?? 0
        // At most the 36 films added, replaced or partly updated since are built;
        // the deleted ones are simply not served.
        #expect(built > 0 && built <= 36, "the films written since were built, no other: \(opened)")
        let count = try #require(try c.roundTrip(["id": "n", "query": "", "indices": ["films"]]).first?.resultsValue).nbHits
        #expect(fromFiles == count - built, "every other film came from the saved base: \(opened)")
        let after = try films.answers(c)
        for (a, b) in zip(before, after) { #expect(a == b) }

        // The same store opened with no saved segment at all: the same answers.
        d.halt()
        try FileManager.default.removeItem(atPath: "\(dataDir)/films.segments")
        try d.start()
        c = try d.connect()
        #expect(try segmentFiles(c)?["openedFromFiles"] == 0)
        let rebuilt = try films.answers(c)
        for (a, b) in zip(before, rebuilt) { #expect(a == b) }
    }

    @Test func aDamagedOrHalfWrittenSegmentFileIsRebuiltFromTheStoreWithAWarning() throws {
        var rng = SystemRandomNumberGenerator()
        let initial = IncrementalWriteTests.initialFilms(&rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: d.directory)
            try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
        }
        var c = try d.connect()
        _ = try segmentFiles(c) { $0["files"] == 1 }
        let before = try films.answers(c)
        let name = try #require(savedFiles(dataDir).first)
        let path = "\(dataDir)/films.segments/\(name)"
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))

        // One byte flipped in the middle; and a temporary file a crash left.
        for damage in ["flipped", "truncated"] {
            d.halt()
            var bytes = whole
            if damage == "flipped" { bytes[bytes.count / 2] ^= 0x20 } else { bytes = bytes.prefix(bytes.count / 2) }
            try bytes.write(to: URL(fileURLWithPath: path))
            try Data("half a file".utf8).write(to: URL(fileURLWithPath: "\(path).tmp"))
            try d.start()
            c = try d.connect()
            let opened = try segmentFiles(c)
            #expect(opened?["openedFromFiles"] == 0, "\(damage): nothing served from the damaged file")
            #expect(opened?["openedBuilt"] == 3000, "\(damage)")
            let after = try films.answers(c)
            for (a, b) in zip(before, after) { #expect(a == b, "\(damage)") }
            // Saved again, whole, and the leftovers gone.
            let again = try segmentFiles(c) { $0["files"] == 1 }
            #expect(again?["files"] == 1, "\(damage): \(String(describing: again))")
            #expect(!savedFiles(dataDir).contains { $0.hasSuffix(".tmp") }, "\(damage): \(savedFiles(dataDir))")
            d.halt()
            let log = String(decoding: d.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let expected = damage == "flipped" ? ["fails its checksum"] : ["past the end of the file", "truncated"]
            #expect(log.contains("cannot be used") && expected.contains { log.contains($0) }, "\(damage): \(log)")
            try d.start()
            c = try d.connect()
            #expect(try segmentFiles(c)?["openedFromFiles"] == 3000, "\(damage): the file saved again serves")
        }
    }

    @Test func aKillWhileASegmentFileIsWrittenLosesNothingAcknowledged() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": ""])
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: d.directory)
            try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
        }
        let c = try d.connect()
        var acknowledged = 0
        var caught = false
        // Batches of 1,000: each base merge is saved (from 1,000 documents), so a file is
        // being written now and then; the kill comes the moment one is seen half-written.
        for b in 0..<60 where !caught {
            let docs = (0..<1000).map { JSONValue.object(IncrementalWriteTests.film(b * 1000 + $0, &rng)) }
            try films.written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": .array(docs)])
            acknowledged += 1000
            caught = poll(seconds: 0.5) { savedFiles(dataDir).contains { $0.hasSuffix(".tmp") } }
        }
        #expect(caught, "a segment file was being written")
        d.halt(kill: true)
        try d.start()
        let c2 = try d.connect()
        let all = try c2.roundTrip(["id": "a", "query": "", "indices": ["films"], "params": ["hitsPerPage": 0]])
        #expect(try #require(all.first?.resultsValue, "\(all)").nbHits == acknowledged)
        // The restarted daemon may be saving a merge of its own (a temporary file that is
        // renamed once whole); the one the kill left is removed, so none stays for long.
        #expect(
            poll(seconds: 30) { !savedFiles(dataDir).contains { $0.hasSuffix(".tmp") } },
            "the half-written file is gone: \(savedFiles(dataDir))")
        let opened = try films.answers(c2)
        // What a build from the store alone answers.
        d.halt()
        try FileManager.default.removeItem(atPath: "\(dataDir)/films.segments")
        try d.start()
        let rebuilt = try films.answers(try d.connect())
        for (a, b) in zip(opened, rebuilt) { #expect(a == b) }
    }

    @Test func anIndexPastMaxSegmentDocumentsKeepsSeveralSavedSegmentsAndOpensThemAll() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var c0 = films.config(dataDir: dataDir, settleAfterMs: 200)
        c0["segmentFileMinDocuments"] = 1000
        c0["maxSegmentDocuments"] = 1000
        let d = try DaemonProcess(config: c0, files: ["films.ndjson": ""])
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: d.directory)
            try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
        }
        var c = try d.connect()
        for b in 0..<8 {
            let docs = (0..<500).map { JSONValue.object(IncrementalWriteTests.film(b * 500 + $0, &rng)) }
            try films.written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": .array(docs)])
        }
        // At rest: no merge makes a segment past 1,000, so 4,000 films stay in at least four,
        // each saved.
        let stats = try pollStats(c, seconds: 30) { p in
            let f = p["writes"]?.objectValue?["films"]?.objectValue
            return f?["merging"] == .bool(false) && (f?["segmentFiles"]?.objectValue?["files"]?.intValue ?? 0) >= 4
        }
        let f = stats?["writes"]?.objectValue?["films"]?.objectValue
        #expect((f?["segments"]?.intValue ?? 0) >= 4, "\(String(describing: f))")
        #expect((f?["segmentFiles"]?.objectValue?["files"]?.intValue ?? 0) >= 4, "\(String(describing: f))")
        let before = try films.answers(c)
        d.halt()
        try d.start()
        c = try d.connect()
        let opened = try segmentFiles(c)
        #expect(opened?["openedFromFiles"] == 4000, "every film from the saved segments: \(String(describing: opened))")
        #expect(opened?["openedBuilt"] == 0)
        let after = try films.answers(c)
        for (a, b) in zip(before, after) { #expect(a == b) }
    }
}
