import FederatedSearchCore
import FederatedSearchStorage

/// The documents of a durable index in memory, by `objectID`, in first-insertion order: what
/// a rebuilt snapshot is built from, so a batch never re-reads the store. Each document keeps
/// its ordinal, its position in the index's order, which an index updated in place ties on as
/// one built whole does. Ordinals are the store's rowids: read from it at start, and given
/// to a new document as SQLite gives a rowid (one more than the largest in the table, 1 in
/// an empty one), so that a saved segment's positions still match its documents at the next
/// start. Where they would drift (a row the table skipped, a rowid SQLite gave otherwise),
/// the documents concerned are only rebuilt at the next start: a saved segment serves a
/// document only at its rowid.
package struct DocumentTable: Sendable {
    /// Documents with their ordinals by slot, in ordinal order; nil where one was deleted
    /// (compacted when half are gone; never last).
    private var slots: [(ordinal: Int64, document: JSONObject)?] = []
    private var positions: [String: Int] = [:]

    /// Documents numbered 1, 2, ... (as rows inserted into an empty table).
    package init(_ documents: [JSONObject]) {
        slots.reserveCapacity(documents.count)
        for d in documents {
            if case .string(let id)? = d["objectID"] { put(id, d) }
        }
    }

    /// The store's rows, in rowid order, each at its rowid.
    package init(rows: DocumentStore.Rows) {
        slots.reserveCapacity(rows.count)
        positions.reserveCapacity(rows.count)
        for i in 0..<rows.count {
            positions[rows.objectIDs[i]] = slots.count
            slots.append((rows.rowids[i], rows.documents[i]))
        }
    }

    package var count: Int { positions.count }

    /// Where the document with this objectID is: for a table made by ``init(rows:)`` and not
    /// changed since, its row's index.
    package func slot(of id: String) -> Int? { positions[id] }

    package subscript(id: String) -> JSONObject? { positions[id].flatMap { slots[$0]?.document } }

    /// The ordinal of a document it holds.
    package func ordinal(of id: String) -> Int64? { positions[id].flatMap { slots[$0]?.ordinal } }

    /// Inserts at the end, or replaces in place.
    package mutating func put(_ id: String, _ document: JSONObject) {
        if let p = positions[id], let ordinal = slots[p]?.ordinal {
            slots[p] = (ordinal, document)
        } else {
            positions[id] = slots.count
            slots.append(((slots.last??.ordinal ?? 0) + 1, document))
        }
    }

    package mutating func remove(_ id: String) {
        guard let p = positions.removeValue(forKey: id) else { return }
        slots[p] = nil
        while let last = slots.last, last == nil { slots.removeLast() }
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
