/// The inverted index: for each term, the documents containing it and, for each such
/// (term, document) pair (a posting), the positions where it occurs.
///
/// Everything is flat arrays of integers: postings of term `t` are
/// `termStart[t]..<termStart[t + 1]`; posting `p` is in document `docs[p]`, its positions are
/// `positions[positionStart[p]..<positionStart[p + 1]]`, each packed as
/// `attributeSlot << 22 | wordPosition`, ascending. `attributeKey[p]` is what the `attribute`
/// rule reads for the first position (`priority << 10 | position`, position 0 in unordered
/// attributes), precomputed so that ranking one word touches no other array.
struct PostingStore: Sendable {
    let termStart: [UInt32]
    let docs: [UInt32]
    let attributeKey: [UInt32]
    let positionStart: [UInt32]
    let positions: [UInt32]

    /// Bits of a packed position that hold the word position.
    static let positionBits: UInt32 = 22
    static let positionMask: UInt32 = (1 << 22) - 1

    @inline(__always) static func slot(_ packed: UInt32) -> UInt32 { packed >> positionBits }
    @inline(__always) static func word(_ packed: UInt32) -> UInt32 { packed & positionMask }

    /// The posting range of term `t`.
    @inline(__always) func postings(_ t: Int) -> Range<Int> { Int(termStart[t])..<Int(termStart[t + 1]) }

    /// The number of documents containing term `t`.
    @inline(__always) func documentFrequency(_ t: Int) -> Int { Int(termStart[t + 1] &- termStart[t]) }

    /// The positions of posting `p`.
    @inline(__always) func positionRange(_ p: Int) -> Range<Int> { Int(positionStart[p])..<Int(positionStart[p + 1]) }

    /// The term of posting `p` (binary search over `termStart`).
    func term(ofPosting p: Int) -> Int {
        var lo = 0
        var hi = termStart.count - 1
        let target = UInt32(p)
        while lo + 1 < hi {
            let mid = (lo + hi) >> 1
            if termStart[mid] <= target { lo = mid } else { hi = mid }
        }
        return lo
    }
}
