extension QueryExecutor {
    /// The most postings a word's best-level terms may have for their documents to be
    /// ranked ahead of the scan (see ``rankPruned(_:ranker:visitor:requiredCount:top:)``).
    static let firstTierLimit = 4096

    /// Top-k selection that visits as few candidates as it can, with the same result as
    /// offering every candidate's key (keys are distinct, so the k smallest are one set
    /// whatever the order of the offers).
    ///
    /// Tier 1: the documents where a word matching at several levels (exact and prefix,
    /// exact and typo) reaches its best level, read from that level's posting lists when
    /// they are short. Tier 2: every other candidate in ascending id order, skipping those
    /// whose key bound cannot enter the top k, and stopping once the k-th key is the best a
    /// remaining document can have: every remaining one has a higher id and a custom ordinal
    /// at least the current one's (documents are numbered in custom ranking order), so a
    /// higher key.
    mutating func rankPruned(
        _ m: TextMatch, ranker: Ranker, visitor: RankVisitor, requiredCount: Int, top: inout TopKeys
    ) throws {
        let postings = index.text.postings
        var floor = m.words.map(\.minFlags)  // per word, its best flags in tier-2 documents
        var tier: [UInt32] = []
        for (w, word) in m.words.enumerated() where !word.spans.isEmpty {
            let best = word.minFlags
            let bestSpans = word.spans.filter { $0.flags == best }
            let rest = word.spans.filter { $0.flags != best }
            let size = bestSpans.reduce(0) { $0 + Int($1.hi - $1.lo) }
            guard !rest.isEmpty, size <= Self.firstTierLimit else { continue }
            for s in bestSpans { for p in Int(s.lo)..<Int(s.hi) { tier.append(postings.docs[p]) } }
            floor[w] = MatchFlags.floor(rest.map(\.flags))
        }
        var row = [UInt32](repeating: .max, count: m.words.count)
        if !tier.isEmpty {
            tier.sort()
            var visit = visitor  // its own cursors: tier-1 documents ascend too
            var kept: [UInt32] = []
            for (i, d) in tier.enumerated() where i == 0 || tier[i - 1] != d {
                guard let r = m.row(of: d) else { continue }  // not a candidate
                kept.append(d)
                visit.hits(r, d, into: &row)
                top.offer(ranker.key(doc: d, hits: row, base: 0))
            }
            tier = kept
        }
        let best = Ranker.bestPrefix(flags: floor, requiredCount: requiredCount, layout: ranker.layout)
        // Documents are numbered in custom ranking order (see IndexSnapshot), so a later one's
        // custom ordinal is at least this one's: the bound includes it.
        let customShift = ranker.layout.shift(.custom)
        let customOrdinal = index.customOrdinal
        var visit = visitor
        var next = 0  // the next tier-1 document, skipped in the scan
        for (r, d) in m.docs.enumerated() {
            if r & 4095 == 4095 { try check.now() }
            if next < tier.count && tier[next] == d {
                next += 1
                continue
            }
            if top.isFull {
                var bound = best
                if customShift >= 0 { bound |= UInt128(min(customOrdinal[Int(d)], (1 << 22) - 1)) << customShift }
                if top.worst >> 32 <= bound >> 32 { break }
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
        var lo = 0, hi = docs.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if docs[mid] < d { lo = mid + 1 } else { hi = mid }
        }
        return lo < docs.count && docs[lo] == d ? lo : nil
    }
}
