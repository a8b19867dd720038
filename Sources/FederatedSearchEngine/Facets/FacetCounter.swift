import FederatedSearchCore

/// Counts facet values over the matching documents, conjunctively or, for disjunctive
/// facets, ignoring each facet's own refinements, in one pass over the text matches.
struct FacetCounter {
    let index: IndexSnapshot

    /// Field indices of the requested facets: `*` means every counted faceting attribute;
    /// names that are not faceting attributes (or are filter-only) are skipped.
    func resolve(_ requested: [String]) -> [Int] {
        var out: [Int] = []
        for name in requested {
            if name == "*" {
                for a in index.settings.attributesForFaceting where a.mode != .filterOnly {
                    if let i = index.facetByName[a.name], !out.contains(i) { out.append(i) }
                }
            } else if let i = index.facetByName[name], index.facets[i].mode != .filterOnly, !out.contains(i) {
                out.append(i)
            }
        }
        return out
    }

    /// Counts of every value of each field over `docs`.
    func count(_ docs: DocumentList, fields: [Int], check: inout CancellationCheck) throws -> [[UInt32]] {
        var counts: [[UInt32]] = []
        counts.reserveCapacity(fields.count)
        for f in fields {
            let field = index.facets[f]
            let (list, start, values) = (docs.elements, field.docStart, field.docValues)
            var c = [UInt32](repeating: 0, count: field.values.count)
            Self.tally(list.span, start: start.span, values: values.span, oneValue: field.oneValuePerDocument, into: &c)
            counts.append(c)
            try check.now()
        }
        return counts
    }

    /// Adds one to `counts` for each value of each of `docs` (``FacetField/valueIndices(of:)``
    /// over spans: `values[start[d]..<start[d + 1]]`, or `values[d]` alone with `oneValue`,
    /// tested once for all documents rather than per document). Read and
    /// written through spans, so a document costs no reference counting and no uniqueness
    /// check of `counts`: a faceted query over many matches spends most of its time here.
    private static func tally(
        _ docs: Span<UInt32>, start: Span<UInt32>, values: Span<UInt32>, oneValue: Bool, into counts: inout [UInt32]
    ) {
        var out = counts.mutableSpan
        if oneValue {
            for j in docs.indices { out[Int(values[Int(docs[j])])] &+= 1 }
            return
        }
        for j in docs.indices {
            let d = Int(docs[j])
            for i in Int(start[d])..<Int(start[d + 1]) { out[Int(values[i])] &+= 1 }
        }
    }

    /// Disjunctive counting. A text match passing `base` and every group counts for every
    /// field; one failing exactly one group counts only for that group's field (its own
    /// refinements ignored); any other is not counted.
    func countDisjunctive(
        _ textDocs: DocumentList, base: DocumentSet?, groups: [(field: Int, set: DocumentSet)], fields: [Int],
        check: inout CancellationCheck
    ) throws -> [[UInt32]] {
        let counted = fields.map { index.facets[$0] }
        // Every field's counts in one array (field `k`'s from `offset[k]`), written through
        // one span: no uniqueness check of a nested array per value counted.
        var offset: [Int] = []
        var total = 0
        for field in counted {
            offset.append(total)
            total += field.values.count
        }
        var flat = [UInt32](repeating: 0, count: total)
        let groupSlot = groups.map { g in fields.firstIndex(of: g.field) }
        var n = 0
        while n < textDocs.count {
            // Cancellation is checked between runs of documents, outside the span's scope.
            let end = min(n + 4096, textDocs.count)
            var out = flat.mutableSpan
            for j in n..<end {
                let d = textDocs[j]
                if let base, !base.contains(d) { continue }
                var failed = -1
                var failures = 0
                for (g, group) in groups.enumerated() where !group.set.contains(d) {
                    failures += 1
                    failed = g
                    if failures > 1 { break }
                }
                if failures > 1 { continue }
                for (k, field) in counted.enumerated() {
                    if failures == 1 && groupSlot[failed] != k { continue }
                    for i in field.valueIndices(of: Int(d)) { out[offset[k] + Int(field.docValues[i])] &+= 1 }
                }
            }
            n = end
            try check.now()
        }
        return counted.indices.map { k in Array(flat[offset[k]..<(offset[k] + counted[k].values.count)]) }
    }

    /// The top values of one field by count (then value) or by value.
    func top(_ counts: [UInt32], field f: Int, limit: Int, order: FacetValueOrder) -> FacetCounts {
        let field = index.facets[f]
        var present: [(count: UInt32, id: Int)] = []
        for (id, c) in counts.enumerated() where c > 0 { present.append((c, id)) }
        switch order {
        case .count: present.sort { $0.count != $1.count ? $0.count > $1.count : $0.id < $1.id }
        case .alpha: break  // ids are in value order already
        }
        return FacetCounts(
            attribute: field.name,
            values: present.prefix(limit).map { (value: field.values[$0.id], count: Int($0.count)) })
    }

    /// min, max, avg and sum of the numeric values of `docs`, if any.
    func stats(_ docs: DocumentList, field f: Int) -> FacetStats? {
        statsPart(docs, field: f)?.stats(attribute: index.facets[f].name)
    }

    /// What `facets_stats` sums over the numeric values of `docs`, if the field has any.
    func statsPart(_ docs: DocumentList, field f: Int) -> NumericSummary? {
        let field = index.facets[f]
        guard field.isNumeric else { return nil }
        var lo = Double.infinity
        var hi = -Double.infinity
        var sum = ExactSum()
        var n = 0
        for d in docs {
            for i in Int(field.numberStart[Int(d)])..<Int(field.numberStart[Int(d) + 1]) {
                let x = field.numbers[i]
                lo = min(lo, x)
                hi = max(hi, x)
                sum.add(x)
                n += 1
            }
        }
        return NumericSummary(min: lo, max: hi, sum: sum, count: n)
    }
}

/// min, max, sum and count of some numeric values, which add up across segments (the sum
/// exactly: see ``ExactSum``).
struct NumericSummary {
    var min: Double
    var max: Double
    var sum: ExactSum
    var count: Int

    static let empty = NumericSummary(min: .infinity, max: -.infinity, sum: ExactSum(), count: 0)

    mutating func add(_ o: NumericSummary) {
        min = Swift.min(min, o.min)
        max = Swift.max(max, o.max)
        sum.add(o.sum)
        count += o.count
    }

    /// The `facets_stats` entry (nil when there are no values).
    func stats(attribute: String) -> FacetStats? {
        guard count > 0 else { return nil }
        let total = sum.value
        return FacetStats(attribute: attribute, min: min, max: max, avg: total / Double(count), sum: total)
    }
}
