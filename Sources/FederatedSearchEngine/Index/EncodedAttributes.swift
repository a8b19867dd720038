import FederatedSearchCore
import Synchronization

/// Each document's retrievable attributes as JSON members (`,"title":"...","year":1977`, no
/// `objectID`), encoded the first time a query retrieves the document and kept for the
/// snapshot's life: the daemon copies them into every hit of that document instead of walking
/// and escaping the tree again (most of the cost of writing a hit).
///
/// Only documents whose members take at most ``maxCachedBytes`` are kept: for those, writing
/// the hit is what the cache saves; a larger one costs about as much to send as to encode, and
/// keeping it would hold memory that a few large pages asked once never give back. Memory
/// grows with the documents actually retrieved, at most that much each. A snapshot's
/// documents never change, so an entry never goes stale; a new snapshot starts empty.
final class EncodedAttributes: Sendable {
    /// The largest encoding kept.
    static let maxCachedBytes = 16 * 1024

    private let slots: Mutex<[[UInt8]?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    /// The members of `document` (number `doc` of the snapshot), encoded once if small.
    func members(of doc: Int, _ document: JSONObject) -> [UInt8] {
        if let cached = slots.withLock({ $0[doc] }) { return cached }
        // Encoded outside the lock; two queries racing for the same document both encode it
        // and store the same bytes.
        let encoded = Self.encode(document)
        if encoded.count <= Self.maxCachedBytes { slots.withLock { $0[doc] = encoded } }
        return encoded
    }

    /// Whether document `doc`'s encoding is kept (for tests).
    func isCached(_ doc: Int) -> Bool { slots.withLock { $0[doc] != nil } }

    /// `,"key":value` for every member but `objectID`, as ``JSONWriter`` writes them.
    static func encode(_ document: JSONObject) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.writeMembers(of: document, except: "objectID", into: &out)
        return out
    }
}
