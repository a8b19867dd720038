import FederatedSearchCore

extension QueryExecutor {
    /// What checking one candidate against a many-term word costs through the forward index
    /// (random reads of the document's postings), in posting visits: the word is deferred
    /// when checking the rarest word's candidates costs less than gathering its postings.
    static let lookupCost = 16

    /// The documents the query's words match, then those passing the filters, with word hits.
    /// With typo tolerance `min` or `strict`, `cut` says which typo counts it keeps: the
    /// fewest found here (`.local`), a count given (`.allowed`, the fewest over every segment
    /// of an index), or all (`.deferred`: the caller cuts with ``cutTypos(_:allowed:filters:)``).
    /// `plans` are the words' plans when the caller made them, and `deferral` which words are
    /// checked on other words' candidates rather than gathered (see ``deferredWords(_:required:)``).
    mutating func matchText(
        _ parsed: ParsedQuery, filters: FilterPlan, scratch: inout Scratch, cut: TypoCut = .local,
        plans given: [WordPlan]? = nil, deferral: [Bool]? = nil
    ) throws -> TextMatch {
        let n = index.documentCount
        var words: [WordMatches] = []
        var termSpans: [[TermSpan]] = []
        var frequency: [Int] = []
        var textDocs: DocumentList
        // No candidate is a deleted document (or none is deleted): nothing to filter out.
        var noneDeleted = live == nil
        if parsed.isEmpty {
            textDocs = DocumentList(Array(0..<UInt32(n)))
            if let live { textDocs.removeAll { !live.contains($0) } }
        } else {
            let required = parsed.words.map { !$0.isOptional }
            let plans = given ?? self.plans(parsed)
            termSpans = plans.map { $0.spans + $0.members.flatMap(\.spans) }
            let deferred = deferral ?? Self.deferredWords(plans.map { WordShape($0, postings: livePostings($0)) }, required: required)
            words.reserveCapacity(plans.count)
            for (i, plan) in plans.enumerated() {
                let intersected = required[i] && required.filter { $0 }.count > 1
                words.append(index.matches(plan, deferred: deferred[i], intersected: intersected, scratch: &scratch))
            }
            textDocs = CandidateMatcher.documents(words, required: required, text: index.text, scratch: &scratch)
            if let live {
                // Every candidate holds each required word: if one of them is a single term
                // in no deleted document, no candidate is deleted, and none is tested.
                noneDeleted = plans.indices.contains { i in
                    required[i] && Self.singleTerm(plans[i]).map { live.deletedPostings(terms: $0, $0 + 1) == 0 } == true
                }
                if !noneDeleted { textDocs.removeAll { !live.contains($0) } }
            }
            frequency = plans.indices.map { documentFrequency(plans[$0], words[$0], deferred: deferred[$0]) }
        }
        try check.now()
        if !parsed.excluded.isEmpty {
            let excluded = excludedDocuments(parsed.excluded)
            textDocs.removeAll { excluded.contains($0) }
        }
        var docs = filters.all.map { set in textDocs.filtered { set.contains($0) } } ?? textDocs
        let restrict = parameters.restrictSearchableAttributes
        let cuts = restrict != nil || typoMode == .min || typoMode == .strict
        if words.count == 1 && words[0].spans.isEmpty && filters.all == nil && parsed.excluded.isEmpty && !cuts
            && noneDeleted
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
        let hits = table.values
        let w = table.width
        return (0..<m.docs.count).map { Self.typos(hits, row: $0, width: w) }.min()
    }

    /// Keeps the matches with at most `allowed` typos (disjunctive facets' text matches too).
    func cutTypos(_ m: inout TextMatch, allowed: Int, filters: FilterPlan) {
        guard let table = m.hits, table.constantBase == nil, table.width > 0 else { return }
        let hits = table.values
        let w = table.width
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

    /// The plans of a query's words.
    func plans(_ parsed: ParsedQuery) -> [WordPlan] {
        let typos = typoMode != .disabled
        return parsed.words.map { index.plan($0, typos: typos) }
    }

    /// Which words are deferred: a required many-term word (not a phrase or synonym input)
    /// whose live postings cost more to gather than checking a required one-term word's
    /// candidates costs is never gathered; it is checked on those candidates only. Decided on
    /// live postings alone, so that an index of several segments decides as one index would.
    static func deferredWords(_ shapes: [WordShape], required: [Bool]) -> [Bool] {
        var rarest = Int.max
        for (i, w) in shapes.enumerated() where required[i] && w.isSingleTerm { rarest = min(rarest, w.postings) }
        return shapes.enumerated().map { i, w in
            required[i] && !w.isSingleTerm && w.isDeferrable && rarest < Int.max && rarest * lookupCost < w.postings
        }
    }

    /// The live postings of a word's terms and synonym phrases (an upper bound of its live
    /// documents).
    func livePostings(_ plan: WordPlan) -> Int {
        var f = plan.phrases.reduce(0) { $0 + liveCount($1) }
        let termStart = index.text.postings.termStart
        for s in plan.spans {
            f += Int(termStart[s.hi] &- termStart[s.lo]) - (live?.deletedPostings(terms: s.lo, s.hi) ?? 0)
        }
        return f
    }

    /// A word's document frequency for BM25: the live documents it matched, or for a
    /// deferred word (its documents never gathered) its live postings. Both add up over the
    /// segments of an index, which defer the same words (``deferredWords(_:required:)``).
    func documentFrequency(_ plan: WordPlan, _ matches: WordMatches, deferred: Bool) -> Int {
        if deferred { return livePostings(plan) }
        if let live, let term = Self.singleTerm(plan) {
            // The word's documents are its one term's: those deleted are its deleted postings
            // (one per document), counted by bisection rather than by testing each document.
            return matches.docs.count - live.deletedPostings(terms: term, term + 1)
        }
        if let bits = matches.docBits {
            guard let live else { return matches.unlistedFrequency ?? 0 }
            var n = 0
            for (w, word) in bits.enumerated() { n += (word & live.bits[w]).nonzeroBitCount }
            return n
        }
        return liveCount(matches)
    }

    /// The word's one term, when its matches are exactly that term's documents (see
    /// ``IndexSnapshot/matches(_:deferred:intersected:scratch:)``).
    static func singleTerm(_ plan: WordPlan) -> Int? {
        guard !plan.word.isPhrase, !plan.word.isGroup, plan.phrases.isEmpty, plan.spans.count == 1,
            plan.spans[0].hi == plan.spans[0].lo + 1
        else { return nil }
        return plan.spans[0].lo
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
    func compact(_ docs: DocumentList, _ hits: [UInt32], width: Int, _ keep: (Int) -> Bool) -> (DocumentList, [UInt32]) {
        var d2: [UInt32] = []
        var h2: [UInt32] = []
        for row in 0..<docs.count where keep(row) {
            d2.append(docs[row])
            h2.append(contentsOf: hits[row * width..<(row + 1) * width])
        }
        return (DocumentList(d2), h2)
    }

    /// `restrictSearchableAttributes`: a word hit counts only if its posting occurs in one of
    /// the allowed attributes. When the best posting does not, a word of many terms (a prefix,
    /// typos) takes its best posting that does, if any (`app` finds `application` in `body`
    /// even when `apple` in `title` is the better hit).
    func restrictAttributes(
        _ docs: DocumentList, _ hits: [UInt32], words: [QueryWord], matches: [WordMatches], to names: Set<String>
    ) -> (DocumentList, [UInt32]) {
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

/// What decides whether a word is deferred (``QueryExecutor/deferredWords(_:required:)``).
struct WordShape {
    /// Whether it is one indexed term.
    var isSingleTerm: Bool
    /// Whether it may be deferred at all (not a phrase, a synonym input, or with synonym phrases).
    var isDeferrable: Bool
    /// Its live postings.
    var postings: Int

    init(_ plan: WordPlan, postings: Int) {
        isSingleTerm = plan.isSingleTerm
        isDeferrable = !plan.word.isPhrase && !plan.word.isGroup && plan.phrases.isEmpty
        self.postings = postings
    }

    init(isSingleTerm: Bool, isDeferrable: Bool, postings: Int) {
        self.isSingleTerm = isSingleTerm
        self.isDeferrable = isDeferrable
        self.postings = postings
    }
}
