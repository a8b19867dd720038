import FederatedSearchCore

/// The documents of a durable index in memory, by `objectID`, in first-insertion order (the
/// order the store's rowids give them at the next start): what a rebuilt snapshot is built
/// from, so a batch never re-reads the store. Each document keeps the ordinal of its first
/// insertion (a replacement keeps it; ordinals only grow): its position in the index's
/// order, which an index updated in place ties on as one built whole does.
package struct DocumentTable: Sendable {
    /// Documents with their ordinals by slot; nil where one was deleted (compacted when half are gone).
    private var slots: [(ordinal: Int64, document: JSONObject)?] = []
    private var positions: [String: Int] = [:]
    private var nextOrdinal: Int64 = 0

    package init(_ documents: [JSONObject]) {
        slots.reserveCapacity(documents.count)
        for d in documents {
            if case .string(let id)? = d["objectID"] { put(id, d) }
        }
    }

    package var count: Int { positions.count }

    package subscript(id: String) -> JSONObject? { positions[id].flatMap { slots[$0]?.document } }

    /// The ordinal of a document it holds.
    package func ordinal(of id: String) -> Int64? { positions[id].flatMap { slots[$0]?.ordinal } }

    /// Inserts at the end, or replaces in place.
    package mutating func put(_ id: String, _ document: JSONObject) {
        if let p = positions[id], let ordinal = slots[p]?.ordinal {
            slots[p] = (ordinal, document)
        } else {
            positions[id] = slots.count
            slots.append((nextOrdinal, document))
            nextOrdinal += 1
        }
    }

    package mutating func remove(_ id: String) {
        guard let p = positions.removeValue(forKey: id) else { return }
        slots[p] = nil
        if positions.count < slots.count / 2 { compact() }
    }

    package mutating func removeAll() {
        slots = []
        positions = [:]
    }

    /// The live documents in order.
    package var documents: [JSONObject] { slots.compactMap { $0?.document } }

    /// The live documents' ordinals, in order.
    package var ordinals: [Int64] { slots.compactMap { $0?.ordinal } }

    private mutating func compact() {
        let live = slots.compactMap { $0 }
        slots = live.map { Optional($0) }
        positions = [:]
        positions.reserveCapacity(live.count)
        for (i, e) in live.enumerated() {
            if case .string(let id)? = e.document["objectID"] { positions[id] = i }
        }
    }
}
