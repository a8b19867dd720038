/// A set of document ids as a bitmap: filters and exclusions are evaluated into these, and
/// AND / OR / NOT are word-wise.
struct DocumentSet: Sendable, Equatable {
    private(set) var words: [UInt64]
    /// The universe size (document count).
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        words = [UInt64](repeating: 0, count: (capacity + 63) >> 6)
    }

    /// The set whose bitmap is `words` (one bit per document, `(capacity + 63) / 64` words).
    init(capacity: Int, words: [UInt64]) {
        self.capacity = capacity
        self.words = words
    }

    /// Every document of `capacity`.
    static func all(_ capacity: Int) -> DocumentSet {
        var s = DocumentSet(capacity: capacity)
        for i in 0..<s.words.count { s.words[i] = ~0 }
        s.clearTail()
        return s
    }

    /// The set of the given ids.
    init<S: Sequence>(capacity: Int, ids: S) where S.Element == UInt32 {
        self.init(capacity: capacity)
        for d in ids { insert(d) }
    }

    @inline(__always) func contains(_ d: UInt32) -> Bool {
        words[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0
    }

    @inline(__always) mutating func insert(_ d: UInt32) {
        words[Int(d >> 6)] |= 1 << UInt64(d & 63)
    }

    mutating func formIntersection(_ o: DocumentSet) {
        for i in 0..<words.count { words[i] &= o.words[i] }
    }

    mutating func formUnion(_ o: DocumentSet) {
        for i in 0..<words.count { words[i] |= o.words[i] }
    }

    mutating func subtract(_ o: DocumentSet) {
        for i in 0..<words.count { words[i] &= ~o.words[i] }
    }

    mutating func invert() {
        for i in 0..<words.count { words[i] = ~words[i] }
        clearTail()
    }

    private mutating func clearTail() {
        let extra = words.count * 64 - capacity
        if extra > 0 && !words.isEmpty { words[words.count - 1] &= ~UInt64(0) >> UInt64(extra) }
    }

    /// The number of members.
    var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The members in ascending order.
    func members() -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(count)
        for (i, w0) in words.enumerated() {
            var w = w0
            while w != 0 {
                out.append(UInt32(i << 6 | w.trailingZeroBitCount))
                w &= w &- 1
            }
        }
        return out
    }
}
