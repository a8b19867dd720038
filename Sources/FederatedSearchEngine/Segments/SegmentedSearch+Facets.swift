import FederatedSearchCore

extension SegmentedSearch {
    /// Facet counts summed by value over the segments, then ordered and cut as one index
    /// would (count then value, or value); `facets_stats` combined.
    func countFacets(
        _ matches: [TextMatch], filters: [FilterPlan], executors: inout [QueryExecutor]
    ) throws -> (counts: [FacetCounts], stats: [FacetStats]) {
        let p = query.parameters
        // Every segment has the same faceting attributes in the same order.
        let fields = FacetCounter(index: segments[0].snapshot).resolve(p.facets + p.disjunctiveFacets)
        guard !fields.isEmpty else { return ([], []) }
        var totals = [[String: Int]](repeating: [:], count: fields.count)
        var summaries = [NumericSummary](repeating: .empty, count: fields.count)
        var numeric = [Bool](repeating: false, count: fields.count)
        for (i, s) in segments.enumerated() where !(matches[i].docs.isEmpty && matches[i].textDocs.isEmpty) {
            let counter = FacetCounter(index: s.snapshot)
            let m = matches[i], f = filters[i]
            let counts = f.isDisjunctive
                ? try counter.countDisjunctive(m.textDocs, base: f.base, groups: f.groups, fields: fields, check: &executors[i].check)
                : try counter.count(m.docs, fields: fields, check: &executors[i].check)
            for (k, field) in fields.enumerated() {
                let values = s.snapshot.facets[field].values
                for (id, c) in counts[k].enumerated() where c > 0 { totals[k][values[id], default: 0] += Int(c) }
                if let part = counter.statsPart(m.docs, field: field) {
                    numeric[k] = true
                    summaries[k].add(part)
                }
            }
        }
        let names = fields.map { segments[0].snapshot.facets[$0].name }
        let counts = fields.indices.map { k in
            Self.top(totals[k], attribute: names[k], limit: p.maxValuesPerFacet, order: p.sortFacetValuesBy)
        }
        let stats = fields.indices.compactMap { k in numeric[k] ? summaries[k].stats(attribute: names[k]) : nil }
        return (counts, stats)
    }

    /// The first `limit` values by count (then value bytes) or by value bytes, as
    /// ``FacetCounter/top(_:field:limit:order:)`` orders one index's.
    static func top(_ counts: [String: Int], attribute: String, limit: Int, order: FacetValueOrder) -> FacetCounts {
        var present = counts.map { (value: $0.key, count: $0.value) }
        func bytesPrecede(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
        switch order {
        case .count: present.sort { $0.count != $1.count ? $0.count > $1.count : bytesPrecede($0.value, $1.value) }
        case .alpha: present.sort { bytesPrecede($0.value, $1.value) }
        }
        return FacetCounts(attribute: attribute, values: Array(present.prefix(limit)))
    }
}
