import FederatedSearchCore

extension EmbeddedIndex {
    /// Values of a faceting attribute that start with `prefix` (the whole value or one of
    /// its words, folded: "dra" finds "Drama", "sci" finds "Science Fiction"), counted over the
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
        var executors = SegmentedSearch(segments: segments, name: name, query: query).executors()
        var scratch = segments.map { $0.data.scratchPool.take() }
        defer { for (s, b) in zip(segments, scratch) { s.data.scratchPool.give(b) } }
        let parsed = executors[0].parse()
        var filters: [FilterPlan] = []
        for s in segments { filters.append(try FilterPlan(index: s.snapshot, parameters: query.parameters)) }
        let matches = try SegmentedSearch.matchOnce(&executors, parsed: parsed, filters: filters, scratch: &scratch)
        var check = CancellationCheck(deadline: query.deadline)
        let wanted = Array(first.analyzer.fold(prefix).utf8)
        var totals: [String: Int] = [:]
        for (s, match) in zip(segments, matches) {
            let counts = try FacetCounter(index: s.snapshot).count(match.docs, fields: [f], check: &check)[0]
            let values = s.snapshot.facets[f].values
            for (id, c) in counts.enumerated() where c > 0 { totals[values[id], default: 0] += Int(c) }
        }
        var found: [(value: String, count: Int)] = []
        for (value, c) in totals {
            if wanted.isEmpty || Self.matches(value, prefix: wanted, analyzer: first.analyzer) { found.append((value, c)) }
        }
        found.sort { $0.count != $1.count ? $0.count > $1.count : $0.value.utf8.lexicographicallyPrecedes($1.value.utf8) }
        return Array(found.prefix(maxValues))
    }

    /// Whether the folded value, or one of its words onwards, starts with `prefix`.
    static func matches(_ value: String, prefix: [UInt8], analyzer: TextAnalyzer) -> Bool {
        let folded = Array(analyzer.fold(value).utf8)
        var start = 0
        while start < folded.count {
            if folded[start...].starts(with: prefix) { return true }
            guard let space = folded[start...].firstIndex(of: UInt8(ascii: " ")) else { return false }
            start = space + 1
        }
        return false
    }
}
