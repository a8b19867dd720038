import FederatedSearchCore

/// Runs one query over an index of several segments, or of one with deleted documents, and
/// answers exactly what one index built from the same live documents would: each segment
/// matches and ranks with the corpus-wide figures (BM25 statistics, the typo cut, whether to
/// drop words), and their results are merged: the best keys in global order, facet counts
/// summed by value, hits built by the segment that holds them.
struct SegmentedSearch {
    let segments: [Segment]
    let name: String
    let query: SearchQuery
    var pruning = true
    var fastHighlight = true

    init(segments: [Segment], name: String, query: SearchQuery) {
        self.segments = segments
        self.name = name
        self.query = query
    }

    var settings: IndexSettings { segments[0].snapshot.settings }

    /// One part per segment, each with its executor, scratch buffers and filters.
    func parts() -> [SegmentQuery] {
        segments.map { s in
            SegmentQuery(
                s, name: name, query: query, pruning: pruning, fastHighlight: fastHighlight,
                exactValues: ExactValues(segments: segments))
        }
    }

    /// Each segment's text match, after the corpus-wide typo cut and dropped words.
    static func match(_ parts: [SegmentQuery], parsed: inout ParsedQuery) throws {
        try matchOnce(parts, parsed: parsed)
        // removeWordsIfNoResults: retry with fewer or optional words while nothing matches anywhere.
        var dropping = WordDropping(parts[0].executor.parameters.removeWordsIfNoResults)
        while parts.allSatisfy({ $0.match.docs.isEmpty }), let words = dropping.next(after: parsed.words) {
            parsed.words = words
            try matchOnce(parts, parsed: parsed)
        }
    }

    /// Each segment's text match for these words, after the corpus-wide typo cut.
    static func matchOnce(_ parts: [SegmentQuery], parsed: ParsedQuery) throws {
        let cuts = parts[0].executor.cutsTypos
        let plans = parts.map { $0.executor.plans(parsed) }
        let deferral = deferredWords(parts, plans: plans, parsed: parsed)
        for (k, part) in parts.enumerated() {
            part.match = try part.executor.matchText(
                parsed, filters: part.filters, scratch: &part.scratch, cut: cuts ? .deferred : .local,
                plans: plans[k], deferral: deferral)
        }
        if cuts, let fewest = parts.compactMap({ $0.executor.fewestTypos($0.match) }).min() {
            let allowed = parts[0].executor.allowedTypos(fewest)
            for part in parts { part.executor.cutTypos(&part.match, allowed: allowed, filters: part.filters) }
        }
    }

    /// The words that one index of the same documents would defer: a word is one term if
    /// it is the same one term in every segment where it matches anything; its postings are
    /// the sum of the segments' live postings.
    static func deferredWords(_ parts: [SegmentQuery], plans: [[WordPlan]], parsed: ParsedQuery) -> [Bool] {
        let required = parsed.words.map { !$0.isOptional }
        // Deferring takes two required words (a rare one and one to check on its candidates).
        guard required.filter({ $0 }).count > 1 else { return required.map { _ in false } }
        let executors = parts.map(\.executor)
        let shapes = parsed.words.indices.map { i -> WordShape in
            var term: String?
            var many = false
            var postings = 0
            for (k, part) in parts.enumerated() {
                let plan = plans[k][i]
                postings += executors[k].livePostings(plan)
                if plan.isSingleTerm {
                    let t = part.segment.snapshot.text.dictionary.string(plan.spans[0].lo)
                    if term == nil { term = t } else if term != t { many = true }
                } else if !plan.spans.isEmpty || !plan.phrases.isEmpty || plan.word.isPhrase || plan.word.isGroup {
                    many = true
                }
            }
            return WordShape(
                isSingleTerm: term != nil && !many, isDeferrable: WordShape(plans[0][i], postings: 0).isDeferrable,
                postings: postings)
        }
        return QueryExecutor.deferredWords(shapes, required: required)
    }

    /// The corpus-wide BM25 figures of the segments' matches.
    static func stats(_ parts: [SegmentQuery]) -> CorpusStats {
        var documents = 0
        var frequency = [Int](repeating: 0, count: parts[0].match.documentFrequency.count)
        var totals = [Double](repeating: 0, count: parts[0].segment.snapshot.text.slots.count)
        for part in parts {
            documents += part.segment.liveCount
            for (w, f) in part.match.documentFrequency.enumerated() { frequency[w] += f }
            let t = CorpusStats.fieldLengthTotals(part.segment.snapshot.text, live: part.segment.live)
            for k in totals.indices { totals[k] += t[k] }
        }
        return CorpusStats(
            documentCount: documents, wordFrequency: frequency,
            averageFieldLength: CorpusStats.averages(totals, documentCount: documents))
    }

    func execute() throws -> SearchResults {
        let started = ContinuousClock.now
        let p = query.parameters
        let parts = parts()
        defer { for part in parts { part.finish() } }
        var parsed = parts[0].executor.parse()
        try parts[0].executor.check.now()
        try Self.match(parts, parsed: &parsed)
        try parts[0].executor.check.now()

        let page = PageRequest(parameters: p, limit: settings.paginationLimitedTo)
        let stats = Self.stats(parts)
        for part in parts where !part.match.docs.isEmpty {
            // A segment that matches nothing (most small ones, for most queries) costs no more.
            part.ranked = try part.executor.rankKeys(part.match, parsed: parsed, page: page, stats: stats)
        }
        let (pageEntries, nbHits) = mergePage(parts, page: page)
        let facets = try countFacets(parts)
        let hits = try buildHits(pageEntries, parts: parts, parsed: parsed)

        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return SearchResults(
            hits: hits, nbHits: nbHits, page: page.page, nbPages: page.pages(for: nbHits),
            hitsPerPage: page.hitsPerPage, facets: facets.counts, facetsStats: facets.stats, exhaustiveNbHits: true,
            processingTimeMS: ms, query: query.text, params: p.encodedForResponse(query: query.text), index: name)
    }

    /// The page's hits in order: each segment builds those it holds.
    private func buildHits(_ entries: [RankedEntry], parts: [SegmentQuery], parsed: ParsedQuery) throws(SearchError) -> [Hit] {
        var perSegment = [[UInt128]](repeating: [], count: parts.count)
        var slot: [(segment: Int, row: Int)] = []
        for e in entries {
            slot.append((e.segment, perSegment[e.segment].count))
            perSegment[e.segment].append(e.key)
        }
        var built = [[Hit]](repeating: [], count: parts.count)
        let scores = query.parameters.getRankingInfo ? UserScores(parts.map { ($0.segment.snapshot, $0.segment.live) }) : nil
        for (i, part) in parts.enumerated() where !perSegment[i].isEmpty {
            guard let r = part.ranked else { continue }
            part.executor.userScores = scores
            part.executor.segmentInScores = i
            let page = part.executor.makePage(perSegment[i], match: part.match, ranker: r.ranker, visitor: r.visitor, nbHits: 0)
            built[i] = try part.executor.buildHits(page, match: part.match, parsed: parsed)
        }
        let hits = slot.map { built[$0.segment][$0.row] }
        let limit = query.answerByteLimit ?? Int.max
        var bytes = 0
        for (row, hit) in hits.enumerated() {
            bytes += (hit.encodedAttributes?.count ?? 0) + (hit.encodedHighlightResult?.count ?? 0)
            if bytes > limit {
                throw QueryExecutor.answerTooLarge(name, hits: row + 1, of: hits.count, limit: limit)
            }
        }
        return hits
    }
}

/// One segment's part of a segmented query: its executor (with the segment's live
/// documents), scratch buffers, filters, match and ranked keys. A class, so that the query's
/// loops over its segments pass references rather than copy these large values.
final class SegmentQuery {
    let segment: Segment
    var executor: QueryExecutor
    var scratch: Scratch
    let filters: FilterPlan
    var match = TextMatch(words: [], textDocs: [], docs: [], hits: nil)
    var ranked: RankedKeys?

    init(
        _ segment: Segment, name: String, query: SearchQuery, pruning: Bool, fastHighlight: Bool, exactValues: ExactValues
    ) {
        self.segment = segment
        var e = QueryExecutor(index: segment.snapshot, name: name, query: query)
        e.live = segment.live
        e.pruning = pruning
        e.fastHighlight = fastHighlight
        executor = e
        filters = FilterPlan(index: segment.snapshot, parameters: query.parameters, exactValues: exactValues)
        scratch = segment.data.scratchPool.take()
    }

    /// Gives the scratch buffers back (their user cleaned them).
    func finish() { segment.data.scratchPool.give(scratch) }
}
