import FederatedSearchCore

/// Runs one query against a snapshot: parse, match words, filter, rank, count facets,
/// build the page. One executor per query; it owns nothing shared.
struct QueryExecutor {
    let index: IndexSnapshot
    let name: String
    let query: SearchQuery
    var check = CancellationCheck()
    /// Whether ranking may skip documents that cannot enter the page (off only in tests,
    /// which check that pruning changes nothing).
    var pruning = true
    /// Whether highlighting may skip the attributes and words that the forward index shows
    /// cannot match (off only in tests, which check that it changes nothing).
    var fastHighlight = true
    /// The snapshot's live documents when some are deleted (a segment of an updated index).
    var live: LiveDocuments? = nil
    /// For `_rankingInfo.userScore` over several segments: all of them, and which this
    /// executor's is (nil: the executor's index alone).
    var userScores: UserScores? = nil
    var segmentInScores = 0

    init(index: IndexSnapshot, name: String, query: SearchQuery) {
        self.index = index
        self.name = name
        self.query = query
        check.deadline = query.deadline
    }

    var parameters: SearchParameters { query.parameters }

    /// The typo mode in force: the query's, else the index's (a query `typoTolerance: false` wins).
    var typoMode: TypoTolerance {
        let p = parameters
        if let m = p.typoToleranceMode { return TypoTolerance(rawValue: m.rawValue) ?? .enabled }
        return p.typoTolerance ? index.settings.typoTolerance : .disabled
    }

    func parse() -> ParsedQuery {
        let p = parameters
        var parser = QueryParser(
            analyzer: index.analyzer, stopWords: index.stopWords,
            minWordSizefor1Typo: p.minWordSizefor1Typo ?? index.settings.minWordSizefor1Typo,
            minWordSizefor2Typos: p.minWordSizefor2Typos ?? index.settings.minWordSizefor2Typos)
        parser.synonyms = index.synonyms
        return parser.parse(query.text, parameters: p, typos: typoMode)
    }

    mutating func execute(scratch: inout Scratch) throws -> SearchResults {
        let started = ContinuousClock.now
        let p = parameters
        var parsed = parse()
        let filters = FilterPlan(index: index, parameters: p)
        try check.now()

        var match = try matchText(parsed, filters: filters, scratch: &scratch)
        // removeWordsIfNoResults: retry with fewer or optional words while nothing matches.
        var dropping = WordDropping(p.removeWordsIfNoResults)
        while match.docs.isEmpty, let words = dropping.next(after: parsed.words) {
            parsed.words = words
            match = try matchText(parsed, filters: filters, scratch: &scratch)
        }
        try check.now()

        let page = PageRequest(parameters: p, limit: index.settings.paginationLimitedTo)
        let ranked = try rank(match, parsed: parsed, page: page)
        let facets = try countFacets(match, filters: filters)
        let hits = try buildHits(ranked, match: match, parsed: parsed)

        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return SearchResults(
            hits: hits, nbHits: ranked.nbHits, page: page.page, nbPages: page.pages(for: ranked.nbHits),
            hitsPerPage: page.hitsPerPage, facets: facets.counts, facetsStats: facets.stats, exhaustiveNbHits: true,
            processingTimeMS: ms, query: query.text, params: p.encodedForResponse(query: query.text), index: name)
    }
}

/// The documents a query's text matches, before and after filters.
struct TextMatch {
    var words: [WordMatches]
    /// Text matches (after exclusions and typo-mode cuts), before filters: disjunctive facets count these.
    var textDocs: DocumentList
    /// Matches passing every filter, ascending.
    var docs: DocumentList
    /// Word hits of `docs`, row by row; nil when ranking looks them up as it visits documents.
    var hits: HitTable?
    /// Per query word, the term spans it was planned with (a group's: its members'), so
    /// that highlighting knows which terms can match without expanding the words again.
    var termSpans: [[TermSpan]] = []
    /// Per query word, its document frequency for BM25 (``QueryExecutor/documentFrequency(_:_:)``).
    var documentFrequency: [Int] = []
}

/// Which typo counts a match keeps under typo tolerance `min` or `strict`.
enum TypoCut {
    /// Those allowed by the fewest typos among its own documents.
    case local
    /// At most this many.
    case allowed(Int)
    /// All, for the caller to cut.
    case deferred
}

/// The page a query asks for.
struct PageRequest {
    var page: Int
    var hitsPerPage: Int
    /// First and past-the-end rank of the hits to return.
    var start: Int
    var end: Int
    var limit: Int

    init(parameters p: SearchParameters, limit: Int) {
        self.limit = limit
        if let offset = p.offset {
            let length = p.length ?? p.hitsPerPage
            hitsPerPage = length
            page = length > 0 ? offset / length : 0
            start = min(offset, limit)
            end = min(offset + length, limit)
        } else {
            hitsPerPage = p.hitsPerPage
            page = p.page
            start = min(p.page * p.hitsPerPage, limit)
            end = min(start + p.hitsPerPage, limit)
        }
    }

    func pages(for nbHits: Int) -> Int {
        guard hitsPerPage > 0 else { return 0 }
        let reachable = min(nbHits, limit)
        return (reachable + hitsPerPage - 1) / hitsPerPage
    }
}
