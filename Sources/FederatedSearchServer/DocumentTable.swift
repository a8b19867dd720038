import FederatedSearchCore

/// The documents of a durable index in memory, by `objectID`, in first-insertion order (the
/// order the store's rowids give them at the next start): what each new snapshot is built
/// from, so a batch never re-reads the store.
package struct DocumentTable: Sendable {
    /// Documents by position; nil where one was deleted (compacted when half are gone).
    private var slots: [JSONObject?] = []
    private var positions: [String: Int] = [:]

    package init(_ documents: [JSONObject]) {
        slots.reserveCapacity(documents.count)
        for d in documents {
            if case .string(let id)? = d["objectID"] { put(id, d) }
        }
    }

    package var count: Int { positions.count }

    package subscript(id: String) -> JSONObject? { positions[id].flatMap { slots[$0] } }

    /// Inserts at the end, or replaces in place.
    package mutating func put(_ id: String, _ document: JSONObject) {
        if let p = positions[id] {
            slots[p] = document
        } else {
            positions[id] = slots.count
            slots.append(document)
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
    package var documents: [JSONObject] { slots.compactMap { $0 } }

    private mutating func compact() {
        let live = documents
        self = DocumentTable(live)
    }
}
