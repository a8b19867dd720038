import FederatedSearchCore

extension QueryExecutor {
    /// What checking one candidate against a many-term word costs through the forward index
    /// (random reads of the document's postings), in the posting visits of ``WordPlan/gatherCost``:
    /// the word is deferred when checking the rarest word's candidates costs less than gathering it.
    static let lookupCost = 16

    /// The documents the query's words match, then those passing the filters, with word hits.
    /// With typo tolerance `min` or `strict`, `cut` says which typo counts it keeps: the
    /// fewest found here (`.local`), a count given (`.allowed`, the fewest over every segment
    /// of an index), or all (`.deferred`: the caller cuts with ``cutTypos(_:allowed:filters:)``).
    mutating func matchText(
        _ parsed: ParsedQuery, filters: FilterPlan, scratch: inout Scratch, cut: TypoCut = .local
    ) throws -> TextMatch {
        let n = index.documentCount
        let typos = typoMode != .disabled
        var words: [WordMatches] = []
        var termSpans: [[TermSpan]] = []
        var frequency: [Int] = []
        var textDocs: [UInt32]
        if parsed.isEmpty {
            textDocs = Array(0..<UInt32(n))
            if let live { textDocs.removeAll { !live.contains($0) } }
        } else {
            let required = parsed.words.map { !$0.isOptional }
            let plans = parsed.words.map { index.plan($0, typos: typos, memo: query.memo) }
            termSpans = plans.map { $0.spans + $0.members.flatMap(\.spans) }
            // A many-term word costlier to gather than to check on a required one-term word's
            // candidates is never gathered: it is checked on those candidates only.
            var rarest = Int.max
            for (i, plan) in plans.enumerated() where required[i] && plan.isSingleTerm { rarest = min(rarest, plan.postings) }
            words.reserveCapacity(plans.count)
            for (i, plan) in plans.enumerated() {
                let deferred = required[i] && !plan.isSingleTerm && !plan.word.isPhrase && !plan.word.isGroup
                    && plan.phrases.isEmpty
                    && rarest < Int.max && rarest * Self.lookupCost < plan.gatherCost
                let intersected = required[i] && required.filter { $0 }.count > 1
                words.append(index.matches(plan, deferred: deferred, intersected: intersected, scratch: &scratch))
            }
            textDocs = CandidateMatcher.documents(words, required: required, text: index.text, scratch: &scratch)
            if let live { textDocs.removeAll { !live.contains($0) } }
            frequency = zip(plans, words).map { documentFrequency($0, $1) }
        }
        try check.now()
        if !parsed.excluded.isEmpty {
            let excluded = excludedDocuments(parsed.excluded)
            textDocs.removeAll { excluded.contains($0) }
        }
        var docs = filters.all.map { set in textDocs.filter { set.contains($0) } } ?? textDocs
        let restrict = parameters.restrictSearchableAttributes
        let cuts = restrict != nil || typoMode == .min || typoMode == .strict
        if words.count == 1 && words[0].spans.isEmpty && filters.all == nil && parsed.excluded.isEmpty && !cuts
            && live == nil
        {
            return TextMatch(
                words: words, textDocs: textDocs, docs: docs, hits: .direct(words[0]), termSpans: termSpans,
                documentFrequency: frequency)
        }
        if !cuts {  // ranking looks up the hits of the documents it visits
            return TextMatch(
                words: words, textDocs: textDocs, docs: docs, hits: nil, termSpans: termSpans,
                documentFrequency: frequency)
        }
        var hits = words.isEmpty ? [] : CandidateMatcher.hits(docs, words, text: index.text)
        try check.now()
        if let restrict, !words.isEmpty {
            (docs, hits) = restrictAttributes(docs, hits, words: parsed.words, matches: words, to: Set(restrict))
            if !filters.isDisjunctive { textDocs = docs }
        }
        var match = TextMatch(
            words: words, textDocs: textDocs, docs: docs, hits: .table(hits, width: words.count), termSpans: termSpans,
            documentFrequency: frequency)
        if cutsTypos && !words.isEmpty {
            switch cut {
            case .local: if let fewest = fewestTypos(match) { cutTypos(&match, allowed: allowedTypos(fewest), filters: filters) }
            case .allowed(let allowed): cutTypos(&match, allowed: allowed, filters: filters)
            case .deferred: break
            }
        }
        return match
    }

    /// Whether the typo mode keeps only the matches with the fewest typos (or one more).
    var cutsTypos: Bool { typoMode == .min || typoMode == .strict }

    /// The most typos a match may have when the best has `fewest`.
    func allowedTypos(_ fewest: Int) -> Int { typoMode == .min ? fewest : fewest + 1 }

    /// The fewest typos of a match's documents (nil: none match).
    func fewestTypos(_ m: TextMatch) -> Int? {
        guard let table = m.hits, table.constantBase == nil, table.width > 0 else { return nil }
        let hits = table.values, w = table.width
        return (0..<m.docs.count).map { Self.typos(hits, row: $0, width: w) }.min()
    }

    /// Keeps the matches with at most `allowed` typos (disjunctive facets' text matches too).
    func cutTypos(_ m: inout TextMatch, allowed: Int, filters: FilterPlan) {
        guard let table = m.hits, table.constantBase == nil, table.width > 0 else { return }
        let hits = table.values, w = table.width
        let (docs, kept) = compact(m.docs, hits, width: w) { Self.typos(hits, row: $0, width: w) <= allowed }
        if filters.isDisjunctive {
            let textHits = CandidateMatcher.hits(m.textDocs, m.words, text: index.text)
            m.textDocs = compact(m.textDocs, textHits, width: w) { Self.typos(textHits, row: $0, width: w) <= allowed }.0
        } else {
            m.textDocs = docs
        }
        m.docs = docs
        m.hits = .table(kept, width: w)
    }

    private static func typos(_ hits: [UInt32], row: Int, width w: Int) -> Int {
        var t = 0
        for i in 0..<w where hits[row * w + i] != .max { t += MatchFlags.typos(hits[row * w + i] >> MatchFlags.shift) }
        return t
    }

    /// A word's document frequency for BM25, defined so that it sums over segments: the
    /// live postings of its terms and synonym phrases (a document holding two of its terms
    /// counts twice: an upper bound of its documents, cheap to know without gathering them),
    /// and for a phrase or a multi-word synonym input, the live documents it matched.
    func documentFrequency(_ plan: WordPlan, _ matches: WordMatches) -> Int {
        if plan.word.isPhrase || plan.word.isGroup { return liveCount(matches) }
        var f = plan.phrases.reduce(0) { $0 + liveCount($1) }
        let termStart = index.text.postings.termStart
        for s in plan.spans {
            f += Int(termStart[s.hi] &- termStart[s.lo]) - (live?.deletedPostings(terms: s.lo, s.hi) ?? 0)
        }
        return f
    }

    private func liveCount(_ m: WordMatches) -> Int {
        guard let live else { return m.docs.count }
        return m.docs.reduce(0) { $0 + (live.contains($1) ? 1 : 0) }
    }

    /// Documents containing any excluded term (exact terms only).
    func excludedDocuments(_ terms: [String]) -> DocumentSet {
        var set = DocumentSet(capacity: index.documentCount)
        for t in terms {
            guard let id = index.text.dictionary.id(of: Array(t.utf8)) else { continue }
            for p in index.text.postings.postings(id) { set.insert(index.text.postings.docs[p]) }
        }
        return set
    }

    /// Keeps the rows for which `keep(row)` holds.
    func compact(_ docs: [UInt32], _ hits: [UInt32], width: Int, _ keep: (Int) -> Bool) -> ([UInt32], [UInt32]) {
        var d2: [UInt32] = [], h2: [UInt32] = []
        for row in 0..<docs.count where keep(row) {
            d2.append(docs[row])
            h2.append(contentsOf: hits[row * width..<(row + 1) * width])
        }
        return (d2, h2)
    }

    /// `restrictSearchableAttributes`: a word hit counts only if its posting occurs in one of
    /// the allowed attributes. When the best posting does not, a word of many terms (a prefix,
    /// typos) takes its best posting that does, if any (`app` finds `application` in `body`
    /// even when `apple` in `title` is the better hit).
    func restrictAttributes(
        _ docs: [UInt32], _ hits: [UInt32], words: [QueryWord], matches: [WordMatches], to names: Set<String>
    ) -> ([UInt32], [UInt32]) {
        let allowed = Set(index.text.slots.indices.filter { names.contains(index.text.slots[$0].name) }.map(UInt32.init))
        let postings = index.text.postings
        let forward = index.text.forward
        func isAllowed(_ p: Int) -> Bool {
            postings.positions[postings.positionRange(p)].contains(where: { allowed.contains(PostingStore.slot($0)) })
        }
        let w = words.count
        var hits = hits
        for row in 0..<docs.count {
            for i in 0..<w where hits[row * w + i] != .max {
                let p = Int(hits[row * w + i] & MatchFlags.postingMask)
                if isAllowed(p) { continue }
                var best = UInt32.max
                let d = Int(docs[row])
                for k in Int(forward.start[d])..<Int(forward.start[d + 1]) {
                    let q = forward.postings[k]
                    for s in matches[i].spans where s.lo <= q && q < s.hi && isAllowed(Int(q)) {
                        best = min(best, s.flags << MatchFlags.shift | q)
                    }
                }
                hits[row * w + i] = best
            }
        }
        let anyOptional = words.contains { $0.isOptional }
        return compact(docs, hits, width: w) { row in
            var present = false
            for i in 0..<w {
                let has = hits[row * w + i] != .max
                if !has && !words[i].isOptional { return false }
                present = present || has
            }
            return present || !anyOptional
        }
    }
}
