/// Which documents of a segment are still live, and what its deleted documents held, so
/// that searches skip them and corpus statistics leave them out without rebuilding the
/// segment. A value: a write that deletes makes a changed copy for the next snapshot, and
/// the snapshots already published keep theirs.
struct LiveDocuments: Sendable {
    /// A set bit per live document.
    private(set) var bits: [UInt64]
    /// Live documents.
    private(set) var count: Int
    /// The term of every posting of a deleted document, with repeats: what the deleted
    /// documents add to a term range's postings. Sorted runs, one per deletion at first,
    /// merged like a binary counter (a run merges into the one before it while it is at least
    /// half that one's size), so a write copies and sorts what it deletes, not everything
    /// deleted before, and a lookup searches a few runs.
    private(set) var deletedTerms: [[UInt32]] = []
    /// Words per attribute slot summed over the deleted documents.
    private(set) var deletedFieldLengths: [Double]

    /// The segment's documents, live or not.
    let totalDocuments: Int

    /// Every one of `documentCount` documents live.
    init(documentCount: Int, slots: Int) {
        var bits = [UInt64](repeating: ~0, count: (documentCount + 63) >> 6)
        if !bits.isEmpty { bits[bits.count - 1] = Self.lastWordMask(bits.count, total: documentCount) }
        self.bits = bits
        totalDocuments = documentCount
        count = documentCount
        deletedFieldLengths = [Double](repeating: 0, count: slots)
    }

    @inline(__always) func contains(_ d: UInt32) -> Bool { bits[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0 }

    /// Postings of terms `lo..<hi` that belong to deleted documents.
    func deletedPostings(terms lo: Int, _ hi: Int) -> Int {
        guard lo < hi else { return 0 }
        var n = 0
        for run in deletedTerms { n += Self.lowerBound(run, UInt32(hi)) - Self.lowerBound(run, UInt32(lo)) }
        return n
    }

    /// The postings of deleted documents.
    var deletedPostingCount: Int { deletedTerms.reduce(0) { $0 + $1.count } }

    /// Documents live in `earlier` (the same segment's, or all when nil) and not here.
    func deletedSince(_ earlier: LiveDocuments?) -> [UInt32] {
        var out: [UInt32] = []
        for (w, word) in bits.enumerated() {
            let before = earlier.map { $0.bits[w] } ?? (w == bits.count - 1 ? Self.lastWordMask(bits.count, total: totalDocuments) : ~0)
            var gone = before & ~word
            while gone != 0 {
                out.append(UInt32(w << 6 | gone.trailingZeroBitCount))
                gone &= gone &- 1
            }
        }
        return out
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
        deletedTerms.append(terms)
        while deletedTerms.count > 1 && deletedTerms[deletedTerms.count - 1].count * 2 >= deletedTerms[deletedTerms.count - 2].count {
            let last = deletedTerms.removeLast()
            deletedTerms[deletedTerms.count - 1] = Self.merge(deletedTerms[deletedTerms.count - 1], last)
        }
    }

    /// The bits of the last word that stand for documents.
    private static func lastWordMask(_ words: Int, total: Int) -> UInt64 {
        total & 63 == 0 ? ~0 : (1 << UInt64(total & 63)) - 1
    }

    private static func merge(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        if a.isEmpty { return b }
        var out: [UInt32] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            if a[i] <= b[j] {
                out.append(a[i])
                i += 1
            } else {
                out.append(b[j])
                j += 1
            }
        }
        out.append(contentsOf: a[i...])
        out.append(contentsOf: b[j...])
        return out
    }

    private static func lowerBound(_ a: [UInt32], _ x: UInt32) -> Int {
        var lo = 0
        var hi = a.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if a[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
