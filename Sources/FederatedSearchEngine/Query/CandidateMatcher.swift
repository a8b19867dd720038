/// Combines the words' document lists into the candidate documents of a query.
enum CandidateMatcher {
    /// Documents containing every required word, or, when every word is optional, at least
    /// one word. Required words intersect word-parallel through their bitmaps when at least
    /// two are frequent terms; otherwise the smallest list drives and each document is looked
    /// up in the others (a bit test for a frequent term, a gallop for a list).
    static func documents(
        _ words: [WordMatches], required: [Bool], bitmaps: TermBitmaps, scratch: inout Scratch
    ) -> [UInt32] {
        let order = words.indices.filter { required[$0] }.sorted { words[$0].count < words[$1].count }
        guard let first = order.first else {
            var set = DocumentSet(capacity: scratch.best.count)
            for w in words { for d in w.docs { set.insert(d) } }
            return set.members()
        }
        if order.count == 1 { return Array(words[first].docs) }
        let mapped = order.filter { words[$0].bitmap != nil }
        let lists = order.filter { words[$0].bitmap == nil }
        // AND the bitmaps when that reads fewer words than the smallest list has documents.
        if mapped.count >= 2 && bitmaps.wordCount * mapped.count < words[first].count * (order.count - 1) * 4 {
            intersect(mapped.map { words[$0].bitmap! }, bitmaps: bitmaps, into: &scratch.bits)
            if let driver = lists.first {
                return filter(words[driver], through: lists.dropFirst().map { words[$0] }, bitmap: scratch.bits)
            }
            return members(scratch.bits)
        }
        let others = order.dropFirst().map { words[$0] }
        var cursors = [Int](repeating: 0, count: others.count)
        var out: [UInt32] = []
        out.reserveCapacity(words[first].count)
        candidates: for d in words[first].docs {
            for k in 0..<others.count where others[k].find(d, cursor: &cursors[k], bitmaps: bitmaps) == nil {
                continue candidates
            }
            out.append(d)
        }
        return out
    }

    /// The AND of several term bitmaps, written over `out`.
    static func intersect(_ slots: [Int], bitmaps: TermBitmaps, into out: inout [UInt64]) {
        let n = bitmaps.wordCount
        let a = slots[0] * n, b = slots[1] * n
        for i in 0..<n { out[i] = bitmaps.bits[a &+ i] & bitmaps.bits[b &+ i] }
        for s in slots.dropFirst(2) {
            let c = s * n
            for i in 0..<n { out[i] &= bitmaps.bits[c &+ i] }
        }
    }

    /// The documents of `driver` that are in `bitmap` and in every list of `others`.
    static func filter(_ driver: WordMatches, through others: [WordMatches], bitmap: [UInt64]) -> [UInt32] {
        var out: [UInt32] = []
        var cursors = [Int](repeating: 0, count: others.count)
        candidates: for d in driver.docs where bitmap[Int(d >> 6)] & (1 << UInt64(d & 63)) != 0 {
            for k in 0..<others.count {
                cursors[k] = others[k].seek(d, from: cursors[k])
                let c = cursors[k]
                if c >= others[k].count || others[k].docs[others[k].docs.startIndex &+ c] != d { continue candidates }
            }
            out.append(d)
        }
        return out
    }

    /// The members of `bitmap`, ascending.
    static func members(_ bitmap: [UInt64]) -> [UInt32] {
        var out: [UInt32] = []
        for (i, w0) in bitmap.enumerated() where w0 != 0 {
            var w = w0
            while w != 0 {
                out.append(UInt32(i << 6 | w.trailingZeroBitCount))
                w &= w &- 1
            }
        }
        return out
    }

    /// The hit of every word in every candidate, row by row (`UInt32.max`: the word is absent).
    static func hits(_ docs: [UInt32], _ words: [WordMatches], bitmaps: TermBitmaps) -> [UInt32] {
        let n = words.count
        var out = [UInt32](repeating: .max, count: docs.count * n)
        var cursors = HitCursors(words: words, bitmaps: bitmaps)
        for (i, d) in docs.enumerated() { cursors.fill(d, into: &out, at: i * n) }
        return out
    }
}

/// Looks up the hits of every query word in candidate documents visited in ascending order,
/// so that ranking can read the hits of only the documents it visits.
struct HitCursors {
    let words: [WordMatches]
    let bitmaps: TermBitmaps
    private var cursors: [Int]

    init(words: [WordMatches], bitmaps: TermBitmaps) {
        self.words = words
        self.bitmaps = bitmaps
        cursors = [Int](repeating: 0, count: words.count)
    }

    /// Writes the hit of each word in `doc` (`UInt32.max` when absent) to `out[base...]`.
    @inline(__always) mutating func fill(_ doc: UInt32, into out: inout [UInt32], at base: Int) {
        for w in 0..<words.count {
            if let i = words[w].find(doc, cursor: &cursors[w], bitmaps: bitmaps) {
                out[base &+ w] = words[w].hit(i)
            } else {
                out[base &+ w] = .max
            }
        }
    }
}
