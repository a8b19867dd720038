import FederatedSearchCore

/// Evaluates a parsed filter into a set of documents, from the facet fields' value → documents
/// lists and sorted numbers: no document is read.
///
/// Every attribute a filter names must be in `attributesForFaceting` (numeric filters too:
/// the numbers of faceting attributes are indexed automatically); `_tags` always is.
struct FilterEvaluator {
    let index: IndexSnapshot
    /// For one segment of several: which filter values some segment holds exactly.
    var exactValues: ExactValues? = nil

    func evaluate(_ e: FilterExpression) throws(SearchError) -> DocumentSet {
        let n = index.documentCount
        switch e {
        case .and(let parts):
            var set = DocumentSet.all(n)
            for p in parts { set.formIntersection(try evaluate(p)) }
            return set
        case .or(let parts):
            var set = DocumentSet(capacity: n)
            for p in parts { set.formUnion(try evaluate(p)) }
            return set
        case .not(let inner):
            var set = try evaluate(inner)
            set.invert()
            return set
        case .facet(let attribute, let value):
            let field = try field(attribute)
            var set = DocumentSet(capacity: n)
            let anywhere = exactValues?.contains(attribute: attribute, value: value)
            for id in field.ids(of: value, analyzer: index.analyzer, exactAnywhere: anywhere) {
                for d in field.documents(ofValue: id) { set.insert(d) }
            }
            return set
        case .tag(let tag):
            return try evaluate(.facet(attribute: "_tags", value: tag))
        case .numeric(let attribute, let op, let value):
            let field = try field(attribute)
            var set = DocumentSet(capacity: n)
            let lo = field.numberBound(value, strictly: false)  // first >= value
            let hi = field.numberBound(value, strictly: true)  // first > value
            let ranges: [Range<Int>]
            switch op {
            case .lessThan: ranges = [0..<lo]
            case .lessOrEqual: ranges = [0..<hi]
            case .equal: ranges = [lo..<hi]
            case .notEqual: ranges = [0..<lo, hi..<field.sortedNumbers.count]
            case .greaterOrEqual: ranges = [lo..<field.sortedNumbers.count]
            case .greaterThan: ranges = [hi..<field.sortedNumbers.count]
            }
            for r in ranges { for i in r { set.insert(field.sortedNumberDocs[i]) } }
            return set
        case .range(let attribute, let lower, let upper):
            let field = try field(attribute)
            var set = DocumentSet(capacity: n)
            guard lower <= upper else { return set }
            let lo = field.numberBound(lower, strictly: false)
            let hi = field.numberBound(upper, strictly: true)
            for i in lo..<max(lo, hi) { set.insert(field.sortedNumberDocs[i]) }
            return set
        }
    }

    private func field(_ attribute: String) throws(SearchError) -> FacetField {
        guard let i = index.facetByName[attribute] else {
            let known = index.settings.attributesForFaceting.map(\.name).joined(separator: ", ")
            throw SearchError(.invalidFilter,
                "filter: attribute '\(attribute)' is not in attributesForFaceting (\(known.isEmpty ? "none" : known))")
        }
        return index.facets[i]
    }
}

/// Whether any segment of an index has a live document with exactly a facet value: a filter
/// value matches exactly where the index has it, else in its folded form, and that choice
/// belongs to the whole index, not to each segment.
struct ExactValues {
    let segments: [Segment]

    func contains(attribute: String, value: String) -> Bool {
        segments.contains { s in
            guard let f = s.snapshot.facetByName[attribute], let id = s.snapshot.facets[f].exactId(value) else { return false }
            return s.snapshot.facets[f].documents(ofValue: id).contains { s.isLive($0) }
        }
    }
}
