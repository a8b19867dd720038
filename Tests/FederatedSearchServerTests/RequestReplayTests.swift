import Foundation
import Testing
import FederatedSearchCore
@testable import FederatedSearchServer

/// The request path without a socket (what the fuzz harness drives): the same frames a
/// connection sends, in order, and coded errors for bad lines.
struct RequestReplayTests {
    /// A catalog of two embedded indices loaded from files, as the daemon loads them.
    static func catalog() throws -> Catalog {
        let dir = URL(fileURLWithPath: "/tmp/fss-replay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(
            #"""
            {"objectID":"m1","title":"Star Wars","year":1977}
            {"objectID":"m2","title":"Star Trek","year":1979}
            """#.utf8
        ).write(to: dir.appendingPathComponent("movies.ndjson"))
        try Data(#"{"objectID":"p1","title":"Star lamp","price":20}"#.utf8).write(to: dir.appendingPathComponent("products.ndjson"))
        let config = try DaemonConfig.parse(
            Array(
                #"""
                {"searchables":{"movies":{"data":"movies.ndjson","searchableAttributes":["title"],"attributesForFaceting":["year"]},
                 "products":{"data":"products.ndjson","searchableAttributes":["title"]}}}
                """#.utf8), baseDirectory: dir.path)
        return try Catalog.build(config, registry: .embedded)
    }

    static func frames(_ line: String, _ catalog: Catalog) async throws -> [JSONObject] {
        try await RequestReplay.answer(Array(line.utf8), catalog: catalog).map { frame in
            #expect(frame.last == 0x0A)
            return try #require(try JSONParser.parse(Array(frame.dropLast())).objectValue)
        }
    }

    @Test func searchAnswersEachSourceThenMergedThenDone() async throws {
        let catalog = try Self.catalog()
        let frames = try await Self.frames(#"{"id":"q","query":"star","indices":["movies","products"]}"#, catalog)
        #expect(frames.map { $0["type"]?.stringValue } == ["results", "results", "merged", "done"])
        #expect(frames.allSatisfy { $0["id"]?.stringValue == "q" })
        #expect(Set(frames.prefix(2).compactMap { $0["index"]?.stringValue }) == ["movies", "products"])
        #expect(frames[2]["nbHits"]?.numberValue == 3)
    }

    @Test func badLinesGetOneCodedError() async throws {
        let catalog = try Self.catalog()
        for (line, code) in [
            ("{\"id\":\"q\",", ErrorCode.invalidJSON),
            (#"{"id":"q","query":"x","indices":["nope"]}"#, .unknownIndex),
        ] {
            let frames = try await Self.frames(line, catalog)
            #expect(frames.count == 1)
            #expect(frames.first?["type"]?.stringValue == "error")
            #expect(frames.first?["error"]?.objectValue?["code"]?.stringValue == code.rawValue, "\(line)")
        }
    }

    /// A bad request naming an index that does not exist says so first, as on the socket
    /// (and as for an index the peer may not see), not what else was wrong with it.
    @Test func aBadRequestForAnUnknownIndexIsUnknownIndex() async throws {
        let catalog = try Self.catalog()
        let frames = try await Self.frames(#"{"id":"w","op":"addDocuments","index":"nope","documents":5}"#, catalog)
        #expect(frames.first?["error"]?.objectValue?["code"]?.stringValue == ErrorCode.unknownIndex.rawValue, "\(frames)")
    }

    /// Every request gets an answer from the server core: a ping its pong, and what needs the
    /// daemon's loop a coded refusal naming the op, never silence.
    @Test func opsThatNeedTheLoopAreRefusedWithACode() async throws {
        let catalog = try Self.catalog()
        let pong = try await Self.frames(#"{"id":"p","op":"ping"}"#, catalog)
        #expect(pong.map { $0["type"]?.stringValue } == ["pong"])
        for op in ["stats", "indices", "reload"] {
            let frames = try await Self.frames(#"{"id":"x","op":"\#(op)"}"#, catalog)
            #expect(frames.count == 1)
            let error = frames.first?["error"]?.objectValue
            #expect(error?["code"]?.stringValue == ErrorCode.unsupportedOperation.rawValue, "\(op)")
            #expect(error?["message"]?.stringValue?.contains(op) == true, "\(op)")
        }
    }
}

/// Writes through the replay reach the durable index's writer, and later lines see them.
struct RequestReplayWriteTests {
    @Test func writesThenReadsAndSearches() async throws {
        let dir = URL(fileURLWithPath: "/tmp/fss-replay-w-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"objectID":"n1","title":"desk lamp"}"#.utf8).write(to: dir.appendingPathComponent("notes.ndjson"))
        let config = try DaemonConfig.parse(
            Array(
                #"""
                {"dataDir":"data","searchables":{"notes":{"data":"notes.ndjson","searchableAttributes":["title"],
                 "access":{"search":["*"],"write":["*"]}}}}
                """#.utf8), baseDirectory: dir.path)
        let catalog = try Catalog.build(config, registry: .embedded)
        let written = try await RequestReplayTests.frames(
            #"{"id":"w","op":"addDocuments","index":"notes","documents":[{"objectID":"n2","title":"lamp shade"}]}"#, catalog)
        #expect(written.first?["type"]?.stringValue == "written")
        let found = try await RequestReplayTests.frames(#"{"id":"s","query":"lamp","indices":["notes"]}"#, catalog)
        #expect(found.first { $0["type"]?.stringValue == "merged" }?["nbHits"]?.numberValue == 2)
        let read = try await RequestReplayTests.frames(#"{"id":"g","op":"getDocuments","index":"notes","objectIDs":["n2"]}"#, catalog)
        #expect(read.first?["type"]?.stringValue != "error")
    }
}
