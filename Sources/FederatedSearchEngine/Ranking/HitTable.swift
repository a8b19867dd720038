/// The hit of every query word in every candidate row: a table (`UInt32.max` for an absent
/// word), or, for a one-word query whose candidates are that word's own list, read straight
/// from the list (its hits, or consecutive postings under constant flags) without a copy.
struct HitTable {
    let values: [UInt32]
    let width: Int
    /// When set, row `r` has the hit `constantBase + r` (one term's consecutive postings).
    let constantBase: UInt32?

    static func table(_ values: [UInt32], width: Int) -> HitTable {
        HitTable(values: values, width: width, constantBase: nil)
    }

    static func direct(_ word: WordMatches) -> HitTable {
        if let hits = word.hits { return HitTable(values: hits, width: 1, constantBase: nil) }
        return HitTable(
            values: [], width: 1,
            constantBase: word.constantFlags << MatchFlags.shift | UInt32(word.firstPosting))
    }

    static let none = HitTable(values: [], width: 0, constantBase: nil)

    @inline(__always) func hit(_ row: Int, _ word: Int) -> UInt32 {
        if let constantBase { return constantBase &+ UInt32(truncatingIfNeeded: row) }
        return values[row &* width &+ word]
    }

    /// Copies the hits of row `row` to `out[base..<base + width]`.
    @inline(__always) func copyRow(_ row: Int, into out: inout [UInt32], at base: Int) {
        for w in 0..<width { out[base &+ w] = hit(row, w) }
    }
}
