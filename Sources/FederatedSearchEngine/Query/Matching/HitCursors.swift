/// Looks up the hits of query words in documents visited in ascending order: membership
/// tests of an intersection, and the hits ranking reads for the documents it visits.
///
/// A frequent term answers with a bit test and a rank, a list with a gallop from where the
/// previous lookup ended, and a word resolved through posting spans (many terms) reads the
/// document's own postings from the forward index. The index arrays are held here, so the
/// per-document path touches no struct copies.
struct HitCursors {
    let words: [WordMatches]
    private let forwardStart: [UInt32]
    private let forwardPostings: [UInt32]
    private let bits: [UInt64]
    private let ranks: [UInt32]
    private let wordCount: Int
    private var cursors: [Int]

    init(words: [WordMatches], text: TextIndex) {
        self.words = words
        forwardStart = text.forward.start
        forwardPostings = text.forward.postings
        bits = text.bitmaps.bits
        ranks = text.bitmaps.ranks
        wordCount = text.bitmaps.wordCount
        cursors = [Int](repeating: 0, count: words.count)
    }

    /// The hit of word `w` in `doc`, or `UInt32.max` when the word is absent from it.
    @inline(__always) mutating func hit(_ w: Int, _ doc: UInt32) -> UInt32 {
        // `words[w]` each time rather than a local: binding the word would retain it (and
        // what is read from it) per word and per document.
        if words[w].isDeferred { return bestHit(doc, words[w].levels) }
        if words[w].docBits != nil {
            guard words[w].docBits![Int(doc >> 6)] & (1 << UInt64(doc & 63)) != 0 else { return .max }
            return bestHit(doc, words[w].levels)
        }
        if let slot = words[w].bitmap {
            let i = slot &* wordCount &+ Int(doc >> 6)
            let bit: UInt64 = 1 << UInt64(doc & 63)
            guard bits[i] & bit != 0 else { return .max }
            return words[w].hit(Int(ranks[i]) &+ (bits[i] & (bit &- 1)).nonzeroBitCount)
        }
        let c = words[w].seek(doc, from: cursors[w])
        cursors[w] = c
        guard c < words[w].count && words[w].docs[words[w].docs.startIndex &+ c] == doc else { return .max }
        return words[w].spans.isEmpty ? words[w].hit(c) : bestHit(doc, words[w].levels)
    }

    /// Whether word `w` is in `doc`: ``hit(_:_:)`` without finding the best posting, which a
    /// word of many terms would read from the document's postings.
    @inline(__always) mutating func contains(_ w: Int, _ doc: UInt32) -> Bool {
        if words[w].isDeferred { return bestHit(doc, words[w].levels) != .max }
        if words[w].docBits != nil { return words[w].docBits![Int(doc >> 6)] & (1 << UInt64(doc & 63)) != 0 }
        if let slot = words[w].bitmap {
            return bits[slot &* wordCount &+ Int(doc >> 6)] & (1 << UInt64(doc & 63)) != 0
        }
        let c = words[w].seek(doc, from: cursors[w])
        cursors[w] = c
        return c < words[w].count && words[w].docs[words[w].docs.startIndex &+ c] == doc
    }

    /// Writes the hit of each word in `doc` (`UInt32.max` when absent) to `out[base...]`.
    @inline(__always) mutating func fill(_ doc: UInt32, into out: inout [UInt32], at base: Int) {
        for w in 0..<words.count { out[base &+ w] = hit(w, doc) }
    }

    /// The best hit (lowest `flags << 28 | posting`) of `doc` among the postings of a word's spans.
    @inline(__always) private func bestHit(_ doc: UInt32, _ levels: [PostingLevel]) -> UInt32 {
        ForwardIndex.bestHit(doc, levels, start: forwardStart, postings: forwardPostings)
    }
}
