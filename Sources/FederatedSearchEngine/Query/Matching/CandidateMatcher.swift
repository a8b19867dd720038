/// Combines the words' document lists into the candidate documents of a query.
enum CandidateMatcher {
    /// Documents containing every required word, or, when every word is optional, at least
    /// one word, ascending.
    ///
    /// The smallest document list drives, each of its documents looked up in the other words
    /// (a bit test for a word with a bitmap, a gallop for a list, the document's postings for
    /// a deferred word). When no word has a list, the words' bitmaps are ANDed word-parallel
    /// and their members checked against the deferred words.
    static func documents(_ words: [WordMatches], required: [Bool], text: TextIndex, scratch: inout Scratch) -> DocumentList {
        let bitmaps = text.bitmaps
        let requiredWords = required.allSatisfy { $0 } ? words : words.indices.filter { required[$0] }.map { words[$0] }
        guard !requiredWords.isEmpty else { return union(words, text: text, scratch: &scratch) }
        // The shortest list (the first of equals) drives.
        let driver = requiredWords.lazy.filter { $0.docBits == nil && !$0.isDeferred }.min { $0.count < $1.count }
        let mapped = requiredWords.count { $0.bitmap != nil || $0.docBits != nil }
        let undeferred = requiredWords.count { !$0.isDeferred }
        // AND word-parallel when every word has a bitmap and the smallest list is long.
        let and =
            mapped == undeferred && mapped > 1
            && (driver.map { $0.count * 2 > bitmaps.wordCount * mapped } ?? true)
        if let driver, !and {
            let others = requiredWords.filter { $0 !== driver }
            if others.isEmpty { return DocumentList(driver.docs) }
            if others.allSatisfy({ !$0.isDeferred && $0.docBits == nil }) {
                return DocumentList(intersection(driver.docs, others.sorted { $0.count < $1.count }, bitmaps: bitmaps))
            }
            var cursors = HitCursors(words: others, text: text)
            var out: [UInt32] = []
            out.reserveCapacity(driver.count)
            candidates: for d in driver.docs {
                for k in 0..<others.count where !cursors.contains(k, d) { continue candidates }
                out.append(d)
            }
            return DocumentList(out)
        }
        // Every word not deferred has a bitmap (a deferred word always has a rarer one-term
        // word, so at least one is here).
        let undeferredWords = requiredWords.filter { !$0.isDeferred }
        if undeferredWords.allSatisfy({ $0.bitmap != nil }) {
            // Frequent terms' bitmaps, ANDed and read in one pass. A term's bitmap has a bit
            // per document of its postings, so its list's length bounds the result.
            let deferred = requiredWords.filter(\.isDeferred)
            var cursors = HitCursors(words: deferred, text: text)
            return DocumentList(
                SortedLists.and(
                    bits: bitmaps.bits.span, bases: undeferredWords.map { $0.bitmap! * bitmaps.wordCount },
                    wordCount: bitmaps.wordCount, capacity: undeferredWords.map(\.count).min()!
                ) { d in
                    for k in 0..<deferred.count where !cursors.contains(k, d) { return false }
                    return true
                })
        }
        let n = bitmaps.wordCount
        var first = true
        for w in requiredWords where !w.isDeferred {
            if let slot = w.bitmap {
                let base = slot * n
                if first {
                    for i in 0..<n { scratch.bits[i] = bitmaps.bits[base &+ i] }
                } else {
                    for i in 0..<n { scratch.bits[i] &= bitmaps.bits[base &+ i] }
                }
            } else if let own = w.docBits {
                if first { for i in 0..<n { scratch.bits[i] = own[i] } } else { for i in 0..<n { scratch.bits[i] &= own[i] } }
            }
            first = false
        }
        return DocumentList(members(scratch.bits, through: requiredWords.filter(\.isDeferred), text: text))
    }

    /// The documents of `driver` that every word of `others` holds: each a frequent term's
    /// bitmap or a list, none deferred. The rarest narrows first.
    private static func intersection(_ driver: ArraySlice<UInt32>, _ others: [WordMatches], bitmaps: TermBitmaps) -> [UInt32] {
        func narrowed(_ docs: Span<UInt32>, by w: WordMatches) -> [UInt32] {
            if let slot = w.bitmap { return SortedLists.filter(docs, bits: bitmaps.bits.span, base: slot * bitmaps.wordCount) }
            let list = w.docs
            return SortedLists.intersection(docs, list.span)
        }
        var current = narrowed(driver.span, by: others[0])
        for w in others.dropFirst() where !current.isEmpty {
            let next = narrowed(current.span, by: w)
            current = next
        }
        return current
    }

    /// Documents holding at least one word.
    private static func union(_ words: [WordMatches], text: TextIndex, scratch: inout Scratch) -> DocumentList {
        var set = DocumentSet(capacity: scratch.best.count)
        for w in words {
            if let own = w.docBits {
                set.formUnion(DocumentSet(capacity: set.capacity, words: own))
            } else {
                for d in w.docs { set.insert(d) }
            }
        }
        return DocumentList(set.members())
    }

    /// The members of `bitmap` that hold every word of `others`, ascending.
    static func members(_ bitmap: [UInt64], through others: [WordMatches], text: TextIndex) -> [UInt32] {
        var out: [UInt32] = []
        var cursors = HitCursors(words: others, text: text)
        for (i, w0) in bitmap.enumerated() where w0 != 0 {
            var w = w0
            candidates: while w != 0 {
                let d = UInt32(i << 6 | w.trailingZeroBitCount)
                w &= w &- 1
                for k in 0..<others.count where !cursors.contains(k, d) { continue candidates }
                out.append(d)
            }
        }
        return out
    }

    /// The hit of every word in every candidate, row by row (`UInt32.max`: the word is absent).
    static func hits(_ docs: DocumentList, _ words: [WordMatches], text: TextIndex) -> [UInt32] {
        let n = words.count
        var out = [UInt32](repeating: .max, count: docs.count * n)
        var cursors = HitCursors(words: words, text: text)
        for (i, d) in docs.enumerated() { cursors.fill(d, into: &out, at: i * n) }
        return out
    }
}
