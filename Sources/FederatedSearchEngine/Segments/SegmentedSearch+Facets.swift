import FederatedSearchCore

extension SegmentedSearch {
    /// Facet counts summed by value over the segments, then ordered and cut as one index
    /// would (count then value, or value); `facets_stats` combined.
    func countFacets(_ parts: [SegmentQuery]) throws -> (counts: [FacetCounts], stats: [FacetStats]) {
        let p = query.parameters
        // Every segment has the same faceting attributes in the same order.
        let fields = FacetCounter(index: segments[0].snapshot).resolve(p.facets + p.disjunctiveFacets)
        guard !fields.isEmpty else { return ([], []) }
        var perPart: [(part: SegmentQuery, counts: [[UInt32]])] = []
        var summaries = [NumericSummary](repeating: .empty, count: fields.count)
        var numeric = [Bool](repeating: false, count: fields.count)
        for part in parts where !(part.match.docs.isEmpty && part.match.textDocs.isEmpty) {
            let counter = FacetCounter(index: part.segment.snapshot)
            let m = part.match
            let f = part.filters
            let counts =
                f.isDisjunctive
                ? try counter.countDisjunctive(m.textDocs, base: f.base, groups: f.groups, fields: fields, check: &part.executor.check)
                : try counter.count(m.docs, fields: fields, check: &part.executor.check)
            perPart.append((part, counts))
            for (k, field) in fields.enumerated() {
                if let s = counter.statsPart(m.docs, field: field) {
                    numeric[k] = true
                    summaries[k].add(s)
                }
            }
        }
        let counts = fields.enumerated().map { k, field in
            Self.merged(
                perPart.map { ($0.part.segment.snapshot.facets[field], $0.counts[k]) },
                attribute: segments[0].snapshot.facets[field].name, limit: p.maxValuesPerFacet, order: p.sortFacetValuesBy)
        }
        let names = fields.map { segments[0].snapshot.facets[$0].name }
        let stats = fields.indices.compactMap { k in numeric[k] ? summaries[k].stats(attribute: names[k]) : nil }
        return (counts, stats)
    }

    /// One field's counts over several segments, summed in the value ids of the segment with
    /// the most values (values sorted by bytes, so its id order is value order); values it
    /// lacks are kept aside by name. Then the first `limit` by count (ties by value) or by
    /// value, as ``FacetCounter/top(_:field:limit:order:)`` orders one index's.
    static func merged(_ counts: [(field: FacetField, counts: [UInt32])], attribute: String, limit: Int, order: FacetValueOrder)
        -> FacetCounts
    {
        guard let reference = counts.indices.max(by: { counts[$0].field.values.count < counts[$1].field.values.count }) else {
            return FacetCounts(attribute: attribute, values: [])
        }
        let values = counts[reference].field.values
        var total = counts[reference].counts.map(Int.init)
        var extra: [String: Int] = [:]
        for (i, c) in counts.enumerated() where i != reference {
            for (id, n) in c.counts.enumerated() where n > 0 {
                let value = c.field.values[id]
                if let r = counts[reference].field.exactId(value) { total[Int(r)] += Int(n) } else { extra[value, default: 0] += Int(n) }
            }
        }
        // Present values: a reference id, or (past `values.count`) an extra one.
        let extras = extra.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var present: [(count: Int, key: Int)] = []
        for (id, n) in total.enumerated() where n > 0 { present.append((n, id)) }
        for (i, v) in extras.enumerated() { present.append((extra[v]!, values.count + i)) }
        func value(_ key: Int) -> String { key < values.count ? values[key] : extras[key - values.count] }
        func valuePrecedes(_ a: Int, _ b: Int) -> Bool {
            if a < values.count && b < values.count { return a < b }
            return value(a).utf8.lexicographicallyPrecedes(value(b).utf8)
        }
        switch order {
        case .count: present.sort { $0.count != $1.count ? $0.count > $1.count : valuePrecedes($0.key, $1.key) }
        case .alpha: present.sort { valuePrecedes($0.key, $1.key) }
        }
        return FacetCounts(attribute: attribute, values: present.prefix(limit).map { (value($0.key), $0.count) })
    }
}
