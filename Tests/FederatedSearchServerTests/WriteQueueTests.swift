import Testing
import FederatedSearchCore
import FederatedSearchProtocol
@testable import FederatedSearchServer

/// The writer's pure parts: how queued writes are grouped, and the in-memory document table.
struct WriteQueueTests {
    func pending(_ writes: [IndexWrite]) -> [PendingWrite] {
        writes.map { PendingWrite(write: $0, done: { _ in }) }
    }

    func docs(_ n: Int) -> IndexWrite {
        .documents((0..<n).map { .upsert(["objectID": .string("d\($0)")]) })
    }

    func kinds(_ group: [PendingWrite]) -> [String] {
        group.map {
            switch $0.write {
            case .documents(let c): "docs\(c.count)"
            case .settings: "settings"
            case .deleteBy: "deleteBy"
            case .get: "get"
            case .getSettings: "getSettings"
            case .reconfigure: "reconfigure"
            case .remove: "remove"
            case .replace: "replace"
            }
        }
    }

    @Test func batchesGroupUntilABarrierWhichGoesAlone() {
        var queue = pending([docs(1), .settings([:]), docs(2), .get(["a"]), docs(3), .deleteBy(SearchParameters()), docs(4)])
        // A settings change goes alone: its snapshot is built before it is committed.
        #expect(kinds(WriteGroup.take(from: &queue)) == ["docs1"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["settings"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["docs2"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["get"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["docs3"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["deleteBy"])
        #expect(kinds(WriteGroup.take(from: &queue)) == ["docs4"])
        #expect(WriteGroup.take(from: &queue).isEmpty)
    }

    @Test func groupsAreCappedByBatchesAndChanges() {
        var many = pending(Array(repeating: docs(1), count: WriteGroup.maxBatches + 5))
        #expect(WriteGroup.take(from: &many).count == WriteGroup.maxBatches)
        #expect(WriteGroup.take(from: &many).count == 5)
        // A batch that would pass the change cap starts the next group; one alone may exceed it.
        var big = pending([docs(WriteGroup.maxChanges - 10), docs(20), docs(WriteGroup.maxChanges + 1)])
        #expect(kinds(WriteGroup.take(from: &big)) == ["docs\(WriteGroup.maxChanges - 10)"])
        #expect(kinds(WriteGroup.take(from: &big)) == ["docs20"])
        #expect(kinds(WriteGroup.take(from: &big)) == ["docs\(WriteGroup.maxChanges + 1)"])
    }

    @Test func documentTableKeepsFirstInsertionOrderAcrossReplacesDeletesAndCompaction() {
        var t = DocumentTable([["objectID": "a", "v": 1], ["objectID": "b"], ["objectID": "c"]])
        t.put("b", ["objectID": "b", "v": 2])
        t.put("d", ["objectID": "d"])
        #expect(t.documents.map { $0["objectID"] } == ["a", "b", "c", "d"])
        #expect(t["b"]?["v"] == 2)
        t.remove("a")
        t.remove("c")
        t.remove("missing")
        #expect(t.count == 2)
        #expect(t.documents.map { $0["objectID"] } == ["b", "d"])
        t.put("a", ["objectID": "a"])
        #expect(t.documents.map { $0["objectID"] } == ["b", "d", "a"], "a deleted id comes back at the end")
        for i in 0..<100 { t.put("x\(i)", ["objectID": .string("x\(i)")]) }
        for i in 0..<100 { t.remove("x\(i)") }
        #expect(t.documents.map { $0["objectID"] } == ["b", "d", "a"], "compaction keeps the order")
        t.removeAll()
        #expect(t.count == 0 && t.documents.isEmpty && t["b"] == nil)
    }
}
