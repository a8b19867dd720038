import FederatedSearchCore
import Synchronization

/// One immutable part of an index: a snapshot over some of its documents and, once some of
/// them are deleted, which are still live. An index updated in place is a list of segments,
/// searched together (``SegmentedSearch``) and merged in the background (``MergePolicy``).
struct Segment: Sendable {
    let data: SegmentData
    /// Nil while every document is live.
    var live: LiveDocuments?

    init(data: SegmentData, live: LiveDocuments? = nil) {
        self.data = data
        self.live = live
    }

    var snapshot: IndexSnapshot { data.snapshot }

    /// Documents not deleted.
    var liveCount: Int { live?.count ?? data.snapshot.documentCount }

    /// Whether document `d` is live.
    @inline(__always) func isLive(_ d: UInt32) -> Bool { live?.contains(d) ?? true }

    /// The live document with this objectID, if the segment holds one.
    func liveDocument(_ id: String) -> UInt32? {
        guard let d = data.document(id), isLive(d) else { return nil }
        return d
    }

    /// This segment with `docs` deleted.
    func deleting(_ docs: [UInt32]) -> Segment {
        guard !docs.isEmpty else { return self }
        var live = self.live ?? LiveDocuments(documentCount: snapshot.documentCount, slots: snapshot.text.slots.count)
        live.delete(docs, text: snapshot.text)
        return Segment(data: data, live: live)
    }

    /// The live documents with their positions, in the segment's order (what a merge rebuilds).
    func liveDocuments() -> [(position: Int64, document: JSONObject)] {
        let s = snapshot
        var out: [(position: Int64, document: JSONObject)] = []
        out.reserveCapacity(liveCount)
        for d in 0..<s.documentCount where isLive(UInt32(d)) { out.append((s.positions[d], s.documents[d])) }
        return out
    }
}

/// What the snapshots holding a segment share: its index, its scratch buffers, and its
/// documents by objectID (built on first use).
final class SegmentData: Sendable {
    let snapshot: IndexSnapshot
    let scratchPool: ScratchPool
    /// A number no other segment of this process has (its ``SegmentID``: unlike the object's
    /// address, never reused once it is freed).
    let serial: UInt64
    private let byID = Mutex<[String: UInt32]?>(nil)
    private static let serials = Atomic<UInt64>(0)

    init(snapshot: IndexSnapshot) {
        self.snapshot = snapshot
        scratchPool = ScratchPool(documentCount: snapshot.documentCount)
        serial = Self.serials.add(1, ordering: .relaxed).newValue
    }

    /// The document with this objectID, deleted or not.
    func document(_ id: String) -> UInt32? {
        byID.withLock { map in
            if map == nil { map = Self.documentsByID(snapshot) }
            return map![id]
        }
    }

    /// Builds the objectID map now, if it is not built yet (off the writer's time).
    func prepareDocumentsByID() {
        byID.withLock { map in if map == nil { map = Self.documentsByID(snapshot) } }
    }

    private static func documentsByID(_ snapshot: IndexSnapshot) -> [String: UInt32] {
        var m: [String: UInt32] = [:]
        m.reserveCapacity(snapshot.objectIDs.count)
        for (i, id) in snapshot.objectIDs.enumerated() { m[id] = UInt32(i) }
        return m
    }
}
