import Synchronization

/// Per-query working memory sized to the index: a best-hit slot and a mark bit per document,
/// used to union the postings of many terms (a prefix, typo variants) without sorting.
///
/// Buffers are clean when handed out and cleaned by their user (only the slots it touched),
/// so a query pays for what it uses, not for the corpus size.
struct Scratch: Sendable {
    var best: [UInt32]
    var marks: [UInt64]
    /// A bitmap for word-parallel intersections; every use overwrites it whole.
    var bits: [UInt64]

    init(documentCount: Int) {
        best = [UInt32](repeating: .max, count: documentCount)
        marks = [UInt64](repeating: 0, count: (documentCount + 63) >> 6)
        bits = marks
    }
}

/// A small pool of ``Scratch`` buffers shared by the queries of one index. The lock is held
/// only to pop or push a buffer, never while searching.
final class ScratchPool: Sendable {
    private let buffers = Mutex<[Scratch]>([])
    let documentCount: Int
    /// Buffers kept for reuse (one per concurrently running query, up to this many).
    static let capacity = 8

    init(documentCount: Int) { self.documentCount = documentCount }

    /// A clean buffer.
    func take() -> Scratch {
        buffers.withLock { $0.popLast() } ?? Scratch(documentCount: documentCount)
    }

    /// Returns a buffer that its user has cleaned.
    func give(_ s: consuming Scratch) {
        let s2 = s
        buffers.withLock { if $0.count < Self.capacity { $0.append(s2) } }
    }
}
