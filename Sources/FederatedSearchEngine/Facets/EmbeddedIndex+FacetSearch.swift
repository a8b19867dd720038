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
        let index = snapshot
        guard let f = index.facetByName[attribute], index.facets[f].mode != .filterOnly else {
            throw SearchError(.invalidField, "facetName: attribute '\(attribute)' is not a faceting attribute of index '\(name)'")
        }
        var scratch = scratchPool.take()
        defer { scratchPool.give(scratch) }
        var executor = QueryExecutor(index: index, name: name, query: query)
        let filters = try FilterPlan(index: index, parameters: query.parameters)
        let match = try executor.matchText(executor.parse(), filters: filters, scratch: &scratch)
        var check = CancellationCheck(deadline: query.deadline)
        let counts = try FacetCounter(index: index).count(match.docs, fields: [f], check: &check)[0]
        let field = index.facets[f]
        let wanted = Array(index.analyzer.fold(prefix).utf8)
        var found: [(value: String, count: Int)] = []
        for (id, c) in counts.enumerated() where c > 0 {
            if wanted.isEmpty || Self.matches(field.values[id], prefix: wanted, analyzer: index.analyzer) {
                found.append((field.values[id], Int(c)))
            }
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
