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

    /// One executor per segment, with that segment's live documents.
    func executors() -> [QueryExecutor] {
        segments.map { s in
            var e = QueryExecutor(index: s.snapshot, name: name, query: query)
            e.live = s.live
            e.pruning = pruning
            e.fastHighlight = fastHighlight
            return e
        }
    }

    /// Each segment's text match, after the corpus-wide typo cut and dropped words.
    static func match(
        _ executors: inout [QueryExecutor], parsed: inout ParsedQuery, filters: [FilterPlan], scratch: inout [Scratch]
    ) throws -> [TextMatch] {
        var matches = try matchOnce(&executors, parsed: parsed, filters: filters, scratch: &scratch)
        let p = executors[0].parameters
        // removeWordsIfNoResults: retry with fewer or optional words while nothing matches anywhere.
        func empty() -> Bool { matches.allSatisfy { $0.docs.isEmpty } }
        if empty() && parsed.words.count > 1 && p.removeWordsIfNoResults != .none {
            var words = parsed.words
            while empty() && words.count > 1 {
                switch p.removeWordsIfNoResults {
                case .lastWords: words.removeLast()
                case .firstWords: words.removeFirst()
                case .allOptional: for i in words.indices { words[i].isOptional = true }
                case .none: break
                }
                parsed.words = words
                matches = try matchOnce(&executors, parsed: parsed, filters: filters, scratch: &scratch)
                if p.removeWordsIfNoResults == .allOptional { break }
            }
        }
        return matches
    }

    /// Each segment's text match for these words, after the corpus-wide typo cut.
    static func matchOnce(
        _ executors: inout [QueryExecutor], parsed: ParsedQuery, filters: [FilterPlan], scratch: inout [Scratch]
    ) throws -> [TextMatch] {
        let cuts = executors[0].cutsTypos
        var matches: [TextMatch] = []
        for i in executors.indices {
            matches.append(try executors[i].matchText(
                parsed, filters: filters[i], scratch: &scratch[i], cut: cuts ? .deferred : .local))
        }
        if cuts, let fewest = matches.indices.compactMap({ executors[$0].fewestTypos(matches[$0]) }).min() {
            let allowed = executors[0].allowedTypos(fewest)
            for i in matches.indices { executors[i].cutTypos(&matches[i], allowed: allowed, filters: filters[i]) }
        }
        return matches
    }

    /// The corpus-wide BM25 figures of the segments' matches.
    func stats(_ matches: [TextMatch]) -> CorpusStats {
        var documents = 0
        var frequency = [Int](repeating: 0, count: matches[0].documentFrequency.count)
        var totals = [Double](repeating: 0, count: segments[0].snapshot.text.slots.count)
        for (s, m) in zip(segments, matches) {
            documents += s.liveCount
            for (w, f) in m.documentFrequency.enumerated() { frequency[w] += f }
            for (k, t) in CorpusStats.fieldLengthTotals(s.snapshot.text, live: s.live).enumerated() { totals[k] += t }
        }
        return CorpusStats(
            documentCount: documents, wordFrequency: frequency,
            averageFieldLength: CorpusStats.averages(totals, documentCount: documents))
    }

    mutating func execute() throws -> SearchResults {
        let started = ContinuousClock.now
        let p = query.parameters
        var executors = executors()
        var scratch = segments.map { $0.data.scratchPool.take() }
        defer { for (s, b) in zip(segments, scratch) { s.data.scratchPool.give(b) } }
        var parsed = executors[0].parse()
        var filters: [FilterPlan] = []
        for s in segments { filters.append(try FilterPlan(index: s.snapshot, parameters: p)) }
        try executors[0].check.now()
        let matches = try Self.match(&executors, parsed: &parsed, filters: filters, scratch: &scratch)
        try executors[0].check.now()

        let page = PageRequest(parameters: p, limit: settings.paginationLimitedTo)
        let stats = stats(matches)
        // A segment that matches nothing (most small ones, for most queries) costs no more.
        var ranked: [RankedKeys?] = []
        for i in segments.indices {
            ranked.append(matches[i].docs.isEmpty
                ? nil : try executors[i].rankKeys(matches[i], parsed: parsed, page: page, stats: stats))
        }
        let (pageEntries, nbHits) = mergePage(ranked, matches: matches, executors: executors, page: page)
        let facets = try countFacets(matches, filters: filters, executors: &executors)
        let hits = try buildHits(pageEntries, ranked: ranked, matches: matches, parsed: parsed, executors: executors)

        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return SearchResults(
            hits: hits, nbHits: nbHits, page: page.page, nbPages: page.pages(for: nbHits),
            hitsPerPage: page.hitsPerPage, facets: facets.counts, facetsStats: facets.stats, exhaustiveNbHits: true,
            processingTimeMS: ms, query: query.text, params: p.encodedForResponse(query: query.text), index: name)
    }

    /// The page's hits in order: each segment builds those it holds.
    private func buildHits(
        _ entries: [RankedEntry], ranked: [RankedKeys?], matches: [TextMatch], parsed: ParsedQuery,
        executors: [QueryExecutor]
    ) throws(SearchError) -> [Hit] {
        var perSegment = [[UInt128]](repeating: [], count: segments.count)
        var slot: [(segment: Int, row: Int)] = []
        for e in entries {
            slot.append((e.segment, perSegment[e.segment].count))
            perSegment[e.segment].append(e.key)
        }
        var built: [[Hit]] = []
        for i in segments.indices {
            guard !perSegment[i].isEmpty, let r = ranked[i] else {
                built.append([])
                continue
            }
            let page = executors[i].makePage(perSegment[i], match: matches[i], ranker: r.ranker, visitor: r.visitor, nbHits: 0)
            built.append(try executors[i].buildHits(page, match: matches[i], parsed: parsed))
        }
        let hits = slot.map { built[$0.segment][$0.row] }
        let limit = query.answerByteLimit ?? Int.max
        var bytes = 0
        for (row, hit) in hits.enumerated() {
            bytes += (hit.encodedAttributes?.count ?? 0) + (hit.encodedHighlightResult?.count ?? 0)
            if bytes > limit {
                throw SearchError(.answerTooLarge, "\(name): \(row + 1) of its \(hits.count) hits already pass limits.maxAnswerBytes (\(limit) bytes); ask for fewer hits (hitsPerPage) or attributes (attributesToRetrieve, attributesToHighlight)")
            }
        }
        return hits
    }
}
