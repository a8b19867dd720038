extension QueryExecutor {
    /// The most postings a word's best-level terms may have for their documents to be
    /// gathered and ranked ahead of the scan (see ``rankPruned(_:ranker:visitor:requiredCount:top:)``);
    /// a best level that is a short prefix with its documents precomputed may hold up to
    /// twice as many documents as there are candidates.
    static let firstTierLimit = 4096

    /// Top-k selection that visits as few candidates as it can, with the same result as
    /// offering every candidate's key (keys are distinct, so the k smallest are one set
    /// whatever the order of the offers).
    ///
    /// Tier 1: the documents where a word matching at several levels (exact and prefix,
    /// exact and typo) reaches its best level: a short prefix's precomputed list, or the
    /// level's posting lists when they are short. Tier 2: every other candidate. Each tier
    /// is scanned in ascending id order, skipping documents whose key bound cannot enter the
    /// top k, and stopping once the k-th key is the best a remaining document of the tier
    /// can have: every remaining one has a higher id and a custom ordinal at least the
    /// current one's (documents are numbered in custom ranking order), so a higher key.
    /// Tier 2's bound is higher than tier 1's (its words are past their best level), so once
    /// tier 1 has filled the top k with best-level documents, tier 2 usually stops at once.
    mutating func rankPruned(
        _ m: TextMatch, ranker: Ranker, visitor: RankVisitor, requiredCount: Int, top: inout TopKeys
    ) throws {
        let postings = index.text.postings
        let prefixDocuments = index.text.prefixDocuments
        let bestFlags = m.words.map(\.minFlags)
        var floor = bestFlags  // per word, its best flags in tier-2 documents
        var tier: [UInt32] = []
        var tierSorted = true  // tier holds one ascending list, without duplicates
        for (w, word) in m.words.enumerated() where !word.spans.isEmpty {
            let best = word.minFlags
            let bestSpans = word.spans.filter { $0.flags == best }
            let rest = word.spans.filter { $0.flags != best }
            guard !rest.isEmpty else { continue }
            // A precomputed list far longer than the candidates (a rare word or a filter
            // narrowed them) would cost more to walk than the scan it saves.
            if let n = prefixDocuments.count(of: bestSpans), n <= max(Self.firstTierLimit, 2 * m.docs.count),
                let listed = prefixDocuments.documents(of: bestSpans)
            {
                tierSorted = tier.isEmpty
                tier.append(contentsOf: listed)
            } else {
                let size = bestSpans.reduce(0) { $0 + Int($1.hi - $1.lo) }
                guard size <= Self.firstTierLimit else { continue }
                tierSorted = false
                for s in bestSpans { for p in Int(s.lo)..<Int(s.hi) { tier.append(postings.docs[p]) } }
            }
            floor[w] = MatchFlags.floor(rest.map(\.flags))
        }
        if !tier.isEmpty {
            if !tierSorted {
                tier.sort()
                var unique = 0
                for d in tier where unique == 0 || tier[unique - 1] != d {
                    tier[unique] = d
                    unique += 1
                }
                tier.removeLast(tier.count - unique)
            }
            let best = Ranker.bestPrefix(flags: bestFlags, requiredCount: requiredCount, layout: ranker.layout)
            try scan(DocumentList(tier), candidates: false, skipping: [], bound: best, m, ranker: ranker, visitor: visitor, top: &top)
        }
        let best = Ranker.bestPrefix(flags: floor, requiredCount: requiredCount, layout: ranker.layout)
        try scan(m.docs, candidates: true, skipping: tier, bound: best, m, ranker: ranker, visitor: visitor, top: &top)
    }

    /// Offers the keys of `docs` (ascending) but those in `skipped` (ascending), pruned by
    /// `bound`, the best key prefix any of them can have (see ``rankPruned(_:ranker:visitor:requiredCount:top:)``).
    /// `candidates`: `docs` is the match's list (row `i` is document `i`); otherwise it may
    /// hold documents that are not candidates (a tier-1 list), which are passed over.
    private mutating func scan(
        _ docs: DocumentList, candidates: Bool, skipping skipped: [UInt32], bound best: UInt128, _ m: TextMatch, ranker: Ranker,
        visitor: RankVisitor, top: inout TopKeys
    ) throws {
        // Documents are numbered in custom ranking order (see IndexSnapshot), so a later one's
        // custom ordinal is at least this one's: the bound includes it.
        let customShift = ranker.layout.shift(.custom)
        let customOrdinal = index.customOrdinal
        var visit = visitor  // its own cursors: each scan ascends
        var row = [UInt32](repeating: .max, count: m.words.count)
        var next = 0  // the next skipped document
        for (i, d) in docs.enumerated() {
            if i & 4095 == 4095 { try check.now() }
            if next < skipped.count && skipped[next] <= d {
                while next < skipped.count && skipped[next] < d { next += 1 }
                if next < skipped.count && skipped[next] == d {
                    next += 1
                    continue
                }
            }
            if top.isFull {
                var bound = best
                if customShift >= 0 { bound |= UInt128(min(customOrdinal[Int(d)], (1 << 22) - 1)) << customShift }
                // Every remaining document has a key of at least `bound` in its high part and
                // an id of at least `d`: none beats the k-th once it is below that.
                let worstHigh = top.worst >> 32
                let boundHigh = bound >> 32
                if worstHigh < boundHigh || (worstHigh == boundHigh && UInt32(truncatingIfNeeded: top.worst) < d) { break }
            }
            let r: Int
            if candidates {
                r = i
            } else {
                guard let found = m.row(of: d) else { continue }  // not a candidate
                r = found
            }
            visit.hits(r, d, into: &row)
            if top.isFull && ranker.bound(doc: d, hits: row, base: 0) >= top.worst { continue }
            top.offer(ranker.key(doc: d, hits: row, base: 0))
        }
    }
}

extension TextMatch {
    /// The row of document `d` in `docs`, if it is a match.
    func row(of d: UInt32) -> Int? {
        var lo = 0
        var hi = docs.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if docs[mid] < d { lo = mid + 1 } else { hi = mid }
        }
        return lo < docs.count && docs[lo] == d ? lo : nil
    }
}
