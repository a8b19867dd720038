import FederatedSearchCore

/// What a group of writes changed in an index, to tell which searches it may have changed
/// without running them on the whole index (a percolator: live subscriptions run again only
/// where it may have).
///
/// The changed documents' versions before and after the writes are indexed on their own, with
/// the index's settings (the same analysis, typo rules, inflections and synonyms), and a search
/// is tried on those two small indices:
/// - a search with no query words answers differently only if a changed document, before or
///   after, is among what it counts: its hits under its filters, a facet count (a disjunctive
///   facet counts documents that its own refinements leave out) or a facet's stats;
/// - a search with words also scores by BM25, whose corpus figures all such searches share:
///   if documents were added or removed, or an attribute's total length changed, any of them
///   may have changed. Otherwise only a changed document that matched, before or after, one
///   of its words (whatever the filters, exclusions and the other words) can have changed its
///   hits, counts or scores.
///
/// A search asking for `getRankingInfo` may always have changed (its `userScore` is a hit's
/// place in the whole index). Each test answers "may have changed" whenever it cannot be sure
/// (a search that fails on the small index): it may run a search that finds nothing new,
/// never skip one that would.
public struct ChangeProbe: Sendable {
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
        var probe = query
        probe.deadline = nil
        probe.answerByteLimit = nil
        var p = query.parameters
        (p.page, p.offset, p.length, p.hitsPerPage) = (0, nil, nil, 0)
        (p.attributesToRetrieve, p.attributesToHighlight, p.attributesToSnippet, p.getRankingInfo) = ([], [], [], false)
        guard first.hasQueryWords(query) else {
            // What it counts, under its own filters and facets.
            probe.parameters = p
            return indices.contains { index in
                guard let r = try? index.searchInline(probe) else { return true }
                return r.nbHits > 0 || r.facets.contains { $0.values.contains { $0.count > 0 } } || !r.facetsStats.isEmpty
            }
        }
        if corpusChanged { return true }
        // Any document matching any of its words, whatever else the query asks: every word
        // optional and a prefix (without advanced syntax, an excluded or quoted word is a word;
        // the last word may then be another, and a prefix matches what an exact word does).
        (p.matchingStrategy, p.queryType) = (.any, .prefixAll)
        (p.advancedSyntax, p.removeWordsIfNoResults, p.optionalWords) = (false, .none, [])
        (p.filter, p.filters, p.facetFilters, p.numericFilters, p.tagFilters) = (nil, nil, nil, nil, nil)
        (p.aroundLatLng, p.aroundRadius, p.distinct, p.facets, p.disjunctiveFacets) = (nil, nil, nil, [], [])
        p.restrictSearchableAttributes = nil
        probe.parameters = p
        return indices.contains { index in
            guard let r = try? index.searchInline(probe) else { return true }
            return r.nbHits > 0
        }
    }
}

extension EmbeddedIndex {
    /// Whether `query` has words to match once parsed (stop words, exclusions and the like
    /// taken out): only then does BM25 score its hits.
    func hasQueryWords(_ query: SearchQuery) -> Bool {
        !QueryExecutor(index: segments[0].snapshot, name: name, query: query).parse().isEmpty
    }
}
