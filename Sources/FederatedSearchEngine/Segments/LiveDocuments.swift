/// Which documents of a segment are still live, and what its deleted documents held, so
/// that searches skip them and corpus statistics leave them out without rebuilding the
/// segment. A value: a write that deletes makes a changed copy for the next snapshot, and
/// the snapshots already published keep theirs.
struct LiveDocuments: Sendable {
    /// A set bit per live document.
    private(set) var bits: [UInt64]
    /// Live documents.
    private(set) var count: Int
    /// The term of every posting of a deleted document, ascending (with repeats): what the
    /// deleted documents add to a term range's postings.
    private(set) var deletedTerms: [UInt32] = []
    /// Words per attribute slot summed over the deleted documents.
    private(set) var deletedFieldLengths: [Double]

    /// Every one of `documentCount` documents live.
    init(documentCount: Int, slots: Int) {
        var bits = [UInt64](repeating: ~0, count: (documentCount + 63) >> 6)
        if documentCount & 63 != 0 { bits[bits.count - 1] = (1 << UInt64(documentCount & 63)) - 1 }
        self.bits = bits
        count = documentCount
        deletedFieldLengths = [Double](repeating: 0, count: slots)
    }

    @inline(__always) func contains(_ d: UInt32) -> Bool { bits[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0 }

    /// Postings of terms `lo..<hi` that belong to deleted documents.
    func deletedPostings(terms lo: Int, _ hi: Int) -> Int {
        guard !deletedTerms.isEmpty, lo < hi else { return 0 }
        return Self.lowerBound(deletedTerms, UInt32(hi)) - Self.lowerBound(deletedTerms, UInt32(lo))
    }

    /// Marks these live documents of `text` deleted (a document already deleted is skipped).
    mutating func delete(_ docs: [UInt32], text: TextIndex) {
        var terms: [UInt32] = []
        let slots = text.slots.count
        for d in docs where contains(d) {
            bits[Int(d >> 6)] &= ~(1 << UInt64(d & 63))
            count -= 1
            for k in Int(text.forward.start[Int(d)])..<Int(text.forward.start[Int(d) + 1]) {
                terms.append(UInt32(text.postings.term(ofPosting: Int(text.forward.postings[k]))))
            }
            for s in 0..<slots { deletedFieldLengths[s] += Double(text.fieldLength[Int(d) * slots + s]) }
        }
        guard !terms.isEmpty else { return }
        terms.sort()
        deletedTerms = Self.merge(deletedTerms, terms)
    }

    private static func merge(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        if a.isEmpty { return b }
        var out: [UInt32] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i] <= b[j] { out.append(a[i]); i += 1 } else { out.append(b[j]); j += 1 }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    private static func lowerBound(_ a: [UInt32], _ x: UInt32) -> Int {
        var lo = 0, hi = a.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if a[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
