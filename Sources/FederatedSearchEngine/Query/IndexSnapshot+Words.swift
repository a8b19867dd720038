extension IndexSnapshot {
    /// The term ranges a word matches: the word itself, its prefix range, typo variants,
    /// English inflections and single-word synonyms.
    func spans(of word: QueryWord, typos: Bool) -> [TermSpan] {
        let dict = text.dictionary
        let key = Array(word.term.utf8)
        var spans: [TermSpan] = []
        let exactFlags = MatchFlags.make(typos: 0, exact: true)
        let exactId = dict.id(of: key)
        if let id = exactId { spans.append(TermSpan(lo: id, hi: id + 1, flags: exactFlags)) }
        if word.isPrefix {
            let r = dict.prefixRange(key)
            let lo = exactId == r.lowerBound ? r.lowerBound + 1 : r.lowerBound
            if lo < r.upperBound {
                spans.append(TermSpan(lo: lo, hi: r.upperBound, flags: MatchFlags.make(typos: 0, exact: false)))
            }
        }
        if typos && word.maxTypos > 0 {
            var search = TypoSearch(dictionary: dict, query: key, maxTypos: word.maxTypos, prefix: word.isPrefix)
            search.run()
            spans += search.spans
        }
        let alternative = MatchFlags.make(typos: 0, exact: false)
        if let stem = stemmer.map({ $0.stem(word.term) }), let group = stemGroups[stem] {
            for id in group where Int(id) != exactId {
                spans.append(TermSpan(lo: Int(id), hi: Int(id) + 1, flags: alternative))
            }
        }
        for alt in synonyms.alternatives(of: word.term) where alt.count == 1 {
            if let id = dict.id(of: Array(alt[0].utf8)), id != exactId {
                spans.append(TermSpan(lo: id, hi: id + 1, flags: alternative))
            }
        }
        return spans
    }

    /// The documents matching a word (or phrase), with their best hits.
    func matches(of word: QueryWord, typos: Bool, scratch: inout Scratch) -> WordMatches {
        if word.isPhrase { return phraseMatches(word.terms) }
        let spans = spans(of: word, typos: typos)
        let phrases = synonyms.alternatives(of: word.term).filter { $0.count > 1 }.map { phraseMatches($0) }
        if phrases.isEmpty && spans.count == 1 && spans[0].hi == spans[0].lo + 1 {
            let r = text.postings.postings(spans[0].lo)
            return WordMatches(
                docs: text.postings.docs[r], hits: nil, firstPosting: r.lowerBound, constantFlags: spans[0].flags,
                minFlags: spans[0].flags, bitmap: text.bitmaps.slot(ofTerm: spans[0].lo))
        }
        if spans.isEmpty && phrases.isEmpty { return .empty }
        var merged = union(spans: spans, lists: phrases, scratch: &scratch)
        merged.minFlags = phrases.isEmpty ? spans.map(\.flags).min() ?? 0 : 0
        return merged
    }

    /// Merges the postings of many term ranges (and prepared lists), keeping each
    /// document's best hit, through the scratch buffers: no sorting, cost linear in postings.
    func union(spans: [TermSpan], lists: [WordMatches], scratch: inout Scratch) -> WordMatches {
        let postings = text.postings
        var lowWord = Int.max, highWord = -1
        for span in spans {
            let flagBits = span.flags << MatchFlags.shift
            let r = Int(postings.termStart[span.lo])..<Int(postings.termStart[span.hi])
            if r.isEmpty { continue }
            for p in r {
                let d = Int(postings.docs[p])
                let h = flagBits | UInt32(truncatingIfNeeded: p)
                if h < scratch.best[d] { scratch.best[d] = h }
                scratch.marks[d >> 6] |= 1 << UInt64(d & 63)
            }
            lowWord = min(lowWord, Int(postings.docs[r.lowerBound]) >> 6)
            highWord = max(highWord, Int(postings.docs[r.upperBound - 1]) >> 6)
        }
        for list in lists where list.count > 0 {
            for i in 0..<list.count {
                let d = Int(list.docs[list.docs.startIndex + i])
                let h = list.hit(i)
                if h < scratch.best[d] { scratch.best[d] = h }
                scratch.marks[d >> 6] |= 1 << UInt64(d & 63)
            }
            lowWord = min(lowWord, Int(list.docs.first!) >> 6)
            highWord = max(highWord, Int(list.docs.last!) >> 6)
        }
        var docs: [UInt32] = []
        var hits: [UInt32] = []
        if highWord >= lowWord {
            for w in lowWord...highWord {
                var bits = scratch.marks[w]
                if bits == 0 { continue }
                scratch.marks[w] = 0
                while bits != 0 {
                    let d = w << 6 | bits.trailingZeroBitCount
                    bits &= bits &- 1
                    docs.append(UInt32(d))
                    hits.append(scratch.best[d])
                    scratch.best[d] = .max
                }
            }
        }
        return WordMatches(docs: docs[...], hits: hits, firstPosting: 0, constantFlags: 0)
    }

    /// Documents where the terms occur consecutively; the hit is the first term's posting.
    func phraseMatches(_ terms: [String]) -> WordMatches {
        let dict = text.dictionary
        let postings = text.postings
        var lists: [WordMatches] = []
        for t in terms {
            guard let id = dict.id(of: Array(t.utf8)) else { return .empty }
            let r = postings.postings(id)
            lists.append(WordMatches(docs: postings.docs[r], hits: nil, firstPosting: r.lowerBound, constantFlags: 0))
        }
        var cursors = [Int](repeating: 0, count: lists.count)
        var docs: [UInt32] = [], hits: [UInt32] = []
        outer: for i in 0..<lists[0].count {
            let d = lists[0].docs[lists[0].docs.startIndex + i]
            for k in 1..<lists.count {
                cursors[k] = lists[k].seek(d, from: cursors[k])
                guard cursors[k] < lists[k].count, lists[k].docs[lists[k].docs.startIndex + cursors[k]] == d else {
                    continue outer
                }
            }
            let first = lists[0].firstPosting + i
            starts: for p in postings.positions[postings.positionRange(first)] {
                for k in 1..<lists.count {
                    let posting = lists[k].firstPosting + cursors[k]
                    if !postings.positions[postings.positionRange(posting)].contains(p + UInt32(k)) { continue starts }
                }
                docs.append(d)
                hits.append(UInt32(first))
                break
            }
        }
        return WordMatches(docs: docs[...], hits: hits, firstPosting: 0, constantFlags: 0)
    }
}
