import FederatedSearchCore

extension IndexSnapshot {
    /// The term ranges a word matches: the word itself, its prefix range, typo variants,
    /// English inflections and single-word synonyms; disjoint and ascending, each term with
    /// its best flags (see ``TermSpan/normalized(_:)``).
    func spans(of word: QueryWord, typos: Bool) -> [TermSpan] {
        let dict = text.dictionary
        let key = Array(word.term.utf8)
        var spans: [TermSpan] = []
        let exactFlags = MatchFlags.make(typos: 0, exact: true)
        let exactId = dict.id(of: key)
        if let id = exactId { spans.append(TermSpan(lo: id, hi: id + 1, flags: exactFlags)) }
        if word.isQuoted { return spans }
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
        return TermSpan.normalized(spans)
    }

    /// What a word matches, before its documents are gathered: its term spans, synonym
    /// phrases, and how many postings they hold (an upper bound of its documents).
    func plan(_ word: QueryWord, typos: Bool) -> WordPlan {
        if word.isPhrase { return WordPlan(word: word, spans: [], phrases: [], postings: 0) }
        if word.isGroup {
            var plan = WordPlan(word: word, spans: [], phrases: [], postings: 0)
            plan.members = word.members.map { self.plan($0, typos: typos) }
            return plan
        }
        let spans = spans(of: word, typos: typos)
        let phrases = synonyms.alternatives(of: word.term).filter { $0.count > 1 }.map { phraseMatches($0) }
        var postings = phrases.reduce(0) { $0 + $1.count }
        for s in spans { postings += Int(text.postings.termStart[s.hi] &- text.postings.termStart[s.lo]) }
        return WordPlan(word: word, spans: spans, phrases: phrases, postings: postings)
    }

    /// The documents matching a planned word (or phrase), with their best hits. A word of
    /// one term refers to its posting list; a word of many terms that is a short prefix refers
    /// to its precomputed list (``PrefixDocuments``); another gets its documents merged
    /// (hits read later from the forward index) into a list, or into a bitmap when it is
    /// `intersected` with other words and has many postings, or with `deferred` not at all:
    /// it is then only checked on other words' candidates.
    func matches(_ plan: WordPlan, deferred: Bool, intersected: Bool, scratch: inout Scratch) -> WordMatches {
        let word = plan.word
        if word.isPhrase { return phraseMatches(word.terms) }
        if word.isGroup { return groupMatches(plan, scratch: &scratch) }
        let spans = plan.spans
        if plan.phrases.isEmpty && spans.count == 1 && spans[0].hi == spans[0].lo + 1 {
            let r = text.postings.postings(spans[0].lo)
            return WordMatches(
                docs: text.postings.docs[r], hits: nil, firstPosting: r.lowerBound, constantFlags: spans[0].flags,
                minFlags: spans[0].flags, bitmap: text.bitmaps.slot(ofTerm: spans[0].lo))
        }
        if spans.isEmpty && plan.phrases.isEmpty { return .empty }
        if !plan.phrases.isEmpty {
            let merged = union(spans: spans, lists: plan.phrases, scratch: &scratch)
            merged.minFlags = 0
            return merged
        }
        let termStart = text.postings.termStart
        let out = WordMatches(docs: [], hits: nil, firstPosting: 0, constantFlags: 0)
        out.minFlags = MatchFlags.floor(spans.map(\.flags))
        out.spans = spans.map { PostingSpan(lo: termStart[$0.lo], hi: termStart[$0.hi], flags: $0.flags) }
        out.isDeferred = deferred
        if deferred { return out }
        if intersected, let (bits, count) = text.prefixDocuments.bitmap(of: spans) {
            // A short prefix found in many documents, as the snapshot keeps it.
            out.docBits = bits
            out.unlistedFrequency = count
        } else if let listed = text.prefixDocuments.documents(of: spans) {
            // A short prefix's documents, gathered when the snapshot was built.
            out.docs = listed
        } else if !intersected || plan.postings < text.bitmaps.wordCount {
            out.docs = documents(of: spans, scratch: &scratch)[...]
        } else {
            let bits = bitmap(of: spans)
            out.docBits = bits
            out.unlistedFrequency = bits.reduce(0) { $0 + $1.nonzeroBitCount }
        }
        return out
    }

    /// A multi-word synonym input: the documents holding all its words (hit: the first
    /// word's) or any alternative (hit: the alternative's first term).
    func groupMatches(_ plan: WordPlan, scratch: inout Scratch) -> WordMatches {
        let members = plan.members.map { matches($0, deferred: false, intersected: true, scratch: &scratch) }
        let docs = CandidateMatcher.documents(
            members, required: members.map { _ in true }, text: text, scratch: &scratch)
        var first = HitCursors(words: [members[0]], text: text)
        let all = WordMatches(docs: docs.elements, hits: docs.map { first.hit(0, $0) }, firstPosting: 0, constantFlags: 0)
        var lists = [all]
        for alternative in synonyms.alternatives(ofGroup: plan.word.terms) {
            if alternative.count > 1 {
                lists.append(phraseMatches(alternative))
            } else if let id = text.dictionary.id(of: Array(alternative[0].utf8)) {
                let r = text.postings.postings(id)
                lists.append(
                    WordMatches(
                        docs: text.postings.docs[r], hits: nil, firstPosting: r.lowerBound,
                        constantFlags: MatchFlags.make(typos: 0, exact: false)))
            }
        }
        return union(spans: [], lists: lists, scratch: &scratch)
    }

    /// The documents holding any term of `spans` as a bitmap: frequent terms' bitmaps ORed
    /// in whole, other terms' documents set one by one.
    func bitmap(of spans: [TermSpan]) -> [UInt64] {
        let postings = text.postings
        let bitmaps = text.bitmaps
        var out = [UInt64](repeating: 0, count: bitmaps.wordCount)
        for span in spans {
            for t in span.lo..<span.hi {
                if let slot = bitmaps.slot(ofTerm: t) {
                    let base = slot * bitmaps.wordCount
                    for i in 0..<bitmaps.wordCount { out[i] |= bitmaps.bits[base &+ i] }
                } else {
                    for p in postings.postings(t) {
                        let d = postings.docs[p]
                        out[Int(d >> 6)] |= 1 << UInt64(d & 63)
                    }
                }
            }
        }
        return out
    }

    /// The documents holding any term of `spans`, ascending: bits set in the scratch marks
    /// (a frequent term's bitmap ORed in whole), then read out and cleared.
    func documents(of spans: [TermSpan], scratch: inout Scratch) -> [UInt32] {
        let postings = text.postings
        let bitmaps = text.bitmaps
        var lowWord = Int.max
        var highWord = -1
        for span in spans {
            for t in span.lo..<span.hi {
                if let slot = bitmaps.slot(ofTerm: t) {
                    let base = slot * bitmaps.wordCount
                    for i in 0..<bitmaps.wordCount { scratch.marks[i] |= bitmaps.bits[base &+ i] }
                    lowWord = 0
                    highWord = bitmaps.wordCount - 1
                    continue
                }
                let r = postings.postings(t)
                if r.isEmpty { continue }
                for p in r {
                    let d = Int(postings.docs[p])
                    scratch.marks[d >> 6] |= 1 << UInt64(d & 63)
                }
                lowWord = min(lowWord, Int(postings.docs[r.lowerBound]) >> 6)
                highWord = max(highWord, Int(postings.docs[r.upperBound - 1]) >> 6)
            }
        }
        var docs: [UInt32] = []
        guard highWord >= lowWord else { return docs }
        docs.reserveCapacity(spans.reduce(0) { $0 + Int(postings.termStart[$1.hi] &- postings.termStart[$1.lo]) })
        for w in lowWord...highWord {
            var bits = scratch.marks[w]
            if bits == 0 { continue }
            scratch.marks[w] = 0
            while bits != 0 {
                docs.append(UInt32(w << 6 | bits.trailingZeroBitCount))
                bits &= bits &- 1
            }
        }
        return docs
    }

    /// Merges the postings of many term ranges (and prepared lists), keeping each
    /// document's best hit, through the scratch buffers: no sorting, cost linear in postings.
    func union(spans: [TermSpan], lists: [WordMatches], scratch: inout Scratch) -> WordMatches {
        let postings = text.postings
        var lowWord = Int.max
        var highWord = -1
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
            for t in span.lo..<span.hi where postings.documentFrequency(t) > 0 {  // each term's list is ascending
                let tr = postings.postings(t)
                lowWord = min(lowWord, Int(postings.docs[tr.lowerBound]) >> 6)
                highWord = max(highWord, Int(postings.docs[tr.upperBound - 1]) >> 6)
            }
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
        var docs: [UInt32] = []
        var hits: [UInt32] = []
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

/// A query word's term spans and synonym phrases, before its documents are gathered.
struct WordPlan {
    var word: QueryWord
    var spans: [TermSpan]
    var phrases: [WordMatches]
    /// Postings of its spans and phrases: an upper bound of the documents it matches.
    var postings: Int
    /// The plans of a multi-word synonym input's words.
    var members: [WordPlan] = []

    /// Whether it is one indexed term (its posting list is its document list as it is).
    var isSingleTerm: Bool {
        !word.isPhrase && !word.isGroup && phrases.isEmpty && spans.count == 1 && spans[0].hi == spans[0].lo + 1
    }
}
