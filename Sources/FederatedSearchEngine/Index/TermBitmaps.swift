/// Bitmaps of the frequent terms: one bit per document, plus a rank directory (the number of
/// set bits before each 64-bit word).
///
/// They make the expensive cases cheap: two frequent words intersect word-parallel (64
/// documents per AND), "does document d contain the term" is one bit test, and the posting
/// of term t in document d (its index in the term's posting list) is the rank of d, found in
/// constant time instead of by a search.
///
/// Only terms whose document frequency is at least ``minimumShare`` of the corpus get one:
/// a bitmap with its directory costs 12 bytes per 64 documents, about what such a term's
/// document list costs already.
struct TermBitmaps: Sendable {
    /// Bitmap slot of each term id, or -1.
    let slotOfTerm: [Int32]
    /// 64-bit words per bitmap.
    let wordCount: Int
    /// All bitmaps, slot after slot.
    let bits: [UInt64]
    /// Set bits before each word, slot after slot (same layout as `bits`).
    let ranks: [UInt32]

    /// A term gets a bitmap when it occurs in at least 1/64 of the documents.
    static let minimumShare = 64
    /// ... and in at least this many documents (small corpora need none).
    static let minimumFrequency = 1024

    init(postings: PostingStore, termCount: Int, documentCount: Int) {
        wordCount = (documentCount + 63) >> 6
        let threshold = max(Self.minimumFrequency, documentCount / Self.minimumShare)
        var slotOfTerm = [Int32](repeating: -1, count: termCount)
        var frequent: [Int] = []
        for t in 0..<termCount where postings.documentFrequency(t) >= threshold {
            slotOfTerm[t] = Int32(frequent.count)
            frequent.append(t)
        }
        var bits = [UInt64](repeating: 0, count: frequent.count * wordCount)
        var ranks = [UInt32](repeating: 0, count: frequent.count * wordCount)
        for (slot, t) in frequent.enumerated() {
            let base = slot * wordCount
            for p in postings.postings(t) {
                let d = Int(postings.docs[p])
                bits[base + d >> 6] |= 1 << UInt64(d & 63)
            }
            var running: UInt32 = 0
            for w in 0..<wordCount {
                ranks[base + w] = running
                running &+= UInt32(bits[base + w].nonzeroBitCount)
            }
        }
        self.slotOfTerm = slotOfTerm
        self.bits = bits
        self.ranks = ranks
    }

    /// The bitmap slot of term `t`, if it has one.
    @inline(__always) func slot(ofTerm t: Int) -> Int? {
        let s = slotOfTerm[t]
        return s < 0 ? nil : Int(s)
    }

    /// Whether the bitmap in `slot` has document `d`.
    @inline(__always) func contains(_ slot: Int, _ d: UInt32) -> Bool {
        bits[slot &* wordCount &+ Int(d >> 6)] & (1 << UInt64(d & 63)) != 0
    }

    /// The rank of `d` in the bitmap in `slot` (the number of its documents below `d`); it is
    /// the offset of d's posting in the term's list when the bitmap has `d`.
    @inline(__always) func rank(_ slot: Int, _ d: UInt32) -> Int {
        let w = slot &* wordCount &+ Int(d >> 6)
        let below = bits[w] & ((1 << UInt64(d & 63)) &- 1)
        return Int(ranks[w]) &+ below.nonzeroBitCount
    }
}
