import FederatedSearchCore

extension EmbeddedIndex {
    /// Values of a faceting attribute whose words start with the words of `prefix` (folded,
    /// in any order: "dra" finds "Drama", "sci" and "fi sci" find "Science Fiction"), counted over the
    /// documents matching `query` and its filters; most frequent first, then by value.
    ///
    /// Throws `invalid_field` if `attribute` is not a counted faceting attribute.
    public func searchForFacetValues(
        attribute: String, prefix: String, query: SearchQuery, maxValues: Int = 10
    ) throws -> [(value: String, count: Int)] {
        let first = snapshot
        guard let f = first.facetByName[attribute], first.facets[f].mode != .filterOnly else {
            throw SearchError(.invalidField, "facetName: attribute '\(attribute)' is not a faceting attribute of index '\(name)'")
        }
        let parts = SegmentedSearch(segments: segments, name: name, query: query).parts()
        defer { for part in parts { part.finish() } }
        try SegmentedSearch.matchOnce(parts, parsed: parts[0].executor.parse())
        var check = CancellationCheck(deadline: query.deadline)
        let wanted = first.analyzer.queryTokens(prefix).map { Array($0.term.utf8) }
        var totals: [String: Int] = [:]
        for part in parts {
            let s = part.segment.snapshot
            let counts = try FacetCounter(index: s).count(part.match.docs, fields: [f], check: &check)[0]
            let values = s.facets[f].values
            for (id, c) in counts.enumerated() where c > 0 { totals[values[id], default: 0] += Int(c) }
        }
        var found: [(value: String, count: Int)] = []
        for (value, c) in totals {
            if wanted.isEmpty || Self.matches(value, prefix: wanted, analyzer: first.analyzer) { found.append((value, c)) }
        }
        found.sort { $0.count != $1.count ? $0.count > $1.count : $0.value.utf8.lexicographicallyPrecedes($1.value.utf8) }
        return Array(found.prefix(maxValues))
    }

    /// Whether each of `words` starts some word of the value (folded as the index folds text).
    static func matches(_ value: String, prefix words: [[UInt8]], analyzer: TextAnalyzer) -> Bool {
        let tokens = analyzer.textTokens(value)
        return words.allSatisfy { word in tokens.contains { $0.term.starts(with: word) } }
    }
}
