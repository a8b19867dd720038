import Foundation
import Testing
import FederatedSearchCore
@testable import FederatedSearchStorage

/// The store on real SQLite files: batches are atomic, sequence numbers grow, reopening sees
/// every committed batch, and a failed batch leaves nothing behind.
struct DocumentStoreTests {
    func temporaryPath() throws -> String {
        let dir = URL(fileURLWithPath: "/tmp/fss-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("index.sqlite").path
    }

    @Test func batchesUpsertDeleteAndSurviveReopening() throws {
        let path = try temporaryPath()
        do {
            let store = try DocumentStore(path: path)
            #expect(store.sequence == 0)
            #expect(try store.apply([.upsert(["objectID": "1", "title": "a"]), .upsert(["objectID": "2", "title": "b"])]) == 1)
            #expect(try store.apply([.upsert(["objectID": "1", "title": "a2"]), .delete("2"), .delete("missing")]) == 2)
        }
        let reopened = try DocumentStore(path: path)
        #expect(reopened.sequence == 2)
        #expect(try reopened.allDocuments() == [["objectID": "1", "title": "a2"]])
        #expect(try reopened.documents(ids: ["2", "1"]) == [nil, ["objectID": "1", "title": "a2"]])
        #expect(try reopened.count() == 1)
    }

    @Test func aFailingBatchAppliesNothing() throws {
        let store = try DocumentStore(path: try temporaryPath())
        try store.apply([.upsert(["objectID": "keep"])])
        #expect(throws: StorageError.self) {
            try store.apply([.upsert(["objectID": "new"]), .upsert(["title": "no id"])])
        }
        #expect(try store.allDocuments() == [["objectID": "keep"]])
        #expect(store.sequence == 1)
    }

    @Test func clearAndMetadata() throws {
        let store = try DocumentStore(path: try temporaryPath())
        try store.apply([.upsert(["objectID": "x"]), .clear, .upsert(["objectID": "y"])])
        #expect(try store.allDocuments().map { $0["objectID"] } == ["y"])
        try store.setMetadata("settings", "{}")
        #expect(try store.metadata("settings") == "{}")
        #expect(try store.metadata("absent") == nil)
    }

    @Test func insertionOrderIsKeptAcrossUpdates() throws {
        let store = try DocumentStore(path: try temporaryPath())
        try store.apply((0..<50).map { .upsert(["objectID": .string("d\($0)")]) })
        try store.apply([.upsert(["objectID": "d3", "v": 1])])
        let ids = try store.allDocuments().compactMap { $0["objectID"]?.stringValue }
        #expect(ids == (0..<50).map { "d\($0)" })
    }
}
