import FederatedSearchCore

/// Evaluates a parsed filter into a set of documents, from the facet fields' value → documents
/// lists and sorted numbers: no document is read (but once per snapshot and attribute, to
/// gather the numbers of an attribute that is not a faceting one).
///
/// As in Algolia, a filter naming an attribute the index cannot filter on is not an error: a
/// facet or tag condition on an attribute outside `attributesForFaceting` (`_tags` always is
/// in) matches no document, and a numeric condition works on every numeric attribute (read
/// from the faceting attribute's numbers, or else from numbers gathered on first use), unless
/// `numericAttributesForFiltering` lists the attributes it may name. A child `index` widget of
/// InstantSearch sends its parent's refinements to an index that may not have them.
struct FilterEvaluator {
    let index: IndexSnapshot
    /// For one segment of several: which filter values some segment holds exactly.
    var exactValues: ExactValues? = nil

    func evaluate(_ e: FilterExpression) -> DocumentSet {
        let n = index.documentCount
        switch e {
        case .and(let parts):
            var set = DocumentSet.all(n)
            for p in parts { set.formIntersection(evaluate(p)) }
            return set
        case .or(let parts):
            var set = DocumentSet(capacity: n)
            for p in parts { set.formUnion(evaluate(p)) }
            return set
        case .not(let inner):
            var set = evaluate(inner)
            set.invert()
            return set
        case .facet(let attribute, let value):
            guard let field = field(attribute) else { return DocumentSet(capacity: n) }
            var set = DocumentSet(capacity: n)
            let anywhere = exactValues?.contains(attribute: attribute, value: value)
            for id in field.ids(of: value, analyzer: index.analyzer, exactAnywhere: anywhere) {
                for d in field.documents(ofValue: id) { set.insert(d) }
            }
            return set
        case .tag(let tag):
            return evaluate(.facet(attribute: "_tags", value: tag))
        case .numeric(let attribute, let op, let value):
            return numbers(attribute)?.documents(op, value, count: n) ?? DocumentSet(capacity: n)
        case .range(let attribute, let lower, let upper):
            return numbers(attribute)?.documents(from: lower, through: upper, count: n) ?? DocumentSet(capacity: n)
        }
    }

    private func field(_ attribute: String) -> FacetField? {
        index.facetByName[attribute].map { index.facets[$0] }
    }

    /// The numbers a numeric condition on `attribute` reads; nil when it may not name it.
    private func numbers(_ attribute: String) -> SortedNumbers? {
        if let field = field(attribute) { return field.sortedNumbers }
        if let allowed = index.settings.numericAttributesForFiltering, !allowed.contains(attribute) { return nil }
        return index.lazyNumbers.numbers(of: attribute, documents: index.documents)
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
