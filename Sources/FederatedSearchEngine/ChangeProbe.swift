import FederatedSearchCore

/// What a group of writes changed in an index, to tell which searches it may have changed
/// without running them on the whole index (a percolator: live subscriptions run again only
/// where it may have).
///
/// The changed documents' versions before and after the writes are indexed on their own, with
/// the index's settings (the same analysis, typo rules, inflections and synonyms), and a search
/// is tried on those two small indices (or, for its words, planned on them):
/// - a search with no query words answers differently only if a changed document, before or
///   after, is among what it counts: its hits under its filters, a facet count (a disjunctive
///   facet counts documents that its own refinements leave out) or a facet's stats;
/// - a search with words also scores by BM25, whose corpus figures all such searches share:
///   if documents were added or removed, or an attribute's total length changed, any of them
///   may have changed. Otherwise only a changed document that matched, before or after, one
///   of its words (whatever the filters and the other words) can have changed its hits,
///   counts or scores. A query with exclusions or quotations (`advancedSyntax`) is not tried:
///   it may always have changed.
///
/// A search asking for `getRankingInfo` may always have changed (its `userScore` is a hit's
/// place in the whole index). Each test answers "may have changed" whenever it cannot be sure
/// (a search that fails on the small index): it may run a search that finds nothing new,
/// never skip one that would.
public struct ChangeProbe: Sendable {
    /// What a probe is made from: the changed documents before and after, with the index's
    /// name and settings (cheap to take on the writer; the probe is built where it is tried).
    public struct Changes: Sendable {
        public let name: String
        public let settings: IndexSettings
        public let before: [JSONObject]
        public let after: [JSONObject]

        public init(name: String, settings: IndexSettings, before: [JSONObject], after: [JSONObject]) {
            (self.name, self.settings, self.before, self.after) = (name, settings, before, after)
        }

        /// The probe of these changes.
        public func probe() throws(SearchError) -> ChangeProbe {
            try ChangeProbe(name: name, settings: settings, before: before, after: after)
        }
    }

    private let before: EmbeddedIndex?
    private let after: EmbeddedIndex?
    /// Whether BM25's corpus figures changed: documents added or removed, or the total length
    /// of a searched attribute.
    public let corpusChanged: Bool

    /// The probe of writes that changed `before` (the documents' old versions, absent for new
    /// ones) into `after` (their new versions, absent for deleted ones), in an index with
    /// `settings`.
    public init(name: String, settings: IndexSettings, before: [JSONObject], after: [JSONObject]) throws(SearchError) {
        self.before = before.isEmpty ? nil : try EmbeddedIndex(name: name, settings: settings, documents: before)
        self.after = after.isEmpty ? nil : try EmbeddedIndex(name: name, settings: settings, documents: after)
        func ids(_ documents: [JSONObject]) -> Set<String> { Set(documents.compactMap { $0["objectID"]?.stringValue }) }
        func totals(_ index: EmbeddedIndex?) -> [Double]? { index?.segments[0].snapshot.text.fieldLengthTotals }
        corpusChanged = ids(before) != ids(after) || totals(self.before) != totals(self.after)
    }

    /// Whether `query` (as planned for this index, its defaults applied) may answer differently
    /// after the writes than before.
    public func mayAffect(_ query: SearchQuery) -> Bool {
        let indices = [before, after].compactMap { $0 }
        guard let first = indices.first else { return false }
        // Its ranking info's `userScore` is a hit's place in the whole index's custom ranking,
        // which any changed document may move.
        if query.parameters.getRankingInfo { return true }
        let parsed = first.parsedWords(query)
        guard !parsed.isEmpty else {
            // What it counts, under its own filters and facets (no page of hits).
            var probe = query
            (probe.deadline, probe.answerByteLimit) = (nil, nil)
            (probe.parameters.page, probe.parameters.offset, probe.parameters.length, probe.parameters.hitsPerPage) = (0, nil, nil, 0)
            probe.parameters.attributesToRetrieve = []
            (probe.parameters.attributesToHighlight, probe.parameters.attributesToSnippet) = ([], [])
            return indices.contains { index in
                guard let r = try? index.searchInline(probe) else { return true }
                return r.nbHits > 0 || r.facets.contains { $0.values.contains { $0.count > 0 } } || !r.facetsStats.isEmpty
            }
        }
        // Exclusions and quotations: the test below reads plain words (an excluded word would
        // be a word, which may join a synonym group). Synonym groups: matched as a whole.
        if corpusChanged || !parsed.excluded.isEmpty || parsed.words.contains(where: { $0.isQuotation || $0.isGroup }) {
            return true
        }
        // A changed document, before or after, holding a term one of its words matches (with
        // its prefixes, typos, inflections and one-word synonyms, or a synonym phrase): the
        // small indices' terms are exactly those documents'.
        return indices.contains { $0.anyWordMatches(parsed, of: query) }
    }
}

extension EmbeddedIndex {
    /// `query` as this index parses it: its words (stop words taken out, synonyms grouped) and
    /// exclusions. Only a query with words is scored by BM25.
    func parsedWords(_ query: SearchQuery) -> ParsedQuery {
        QueryExecutor(index: segments[0].snapshot, name: name, query: query).parse()
    }

    /// Whether a word of `parsed` (`query` as parsed with these settings) matches a term of
    /// this index's first segment, as the query's search would plan it.
    func anyWordMatches(_ parsed: ParsedQuery, of query: SearchQuery) -> Bool {
        QueryExecutor(index: segments[0].snapshot, name: name, query: query).plans(parsed).contains { $0.postings > 0 }
    }
}
