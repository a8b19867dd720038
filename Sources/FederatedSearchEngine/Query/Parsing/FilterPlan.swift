import FederatedSearchCore

/// The filters of a query as document sets: everything ANDed (`all`), and for disjunctive
/// faceting the same split into a base and one group per disjunctive facet (the top-level
/// conditions on that facet alone).
struct FilterPlan {
    /// Every filter and the geo radius; nil when nothing filters.
    var all: DocumentSet?
    /// Conditions other than the disjunctive facets' own.
    var base: DocumentSet?
    var groups: [(field: Int, set: DocumentSet)] = []
    /// The disjunctive facets' field indices (counted even if not in `facets`).
    var disjunctiveFields: [Int] = []

    init(index: IndexSnapshot, parameters p: SearchParameters, exactValues: ExactValues? = nil) {
        let evaluator = FilterEvaluator(index: index, exactValues: exactValues)
        // The top-level conditions, nested ANDs flattened: `filters`, `facetFilters`, ... each
        // parse to a conjunction of their own, combined under one more AND, and a condition is
        // top-level whichever parameter it came in.
        var conjuncts: [FilterExpression] = []
        func addConjuncts(_ e: FilterExpression) {
            if case .and(let parts) = e { for part in parts { addConjuncts(part) } } else { conjuncts.append(e) }
        }
        if let f = p.filter { addConjuncts(f) }
        var geo: DocumentSet?
        if let center = p.aroundLatLng, let radius = p.aroundRadius {
            var set = DocumentSet(capacity: index.documentCount)
            for d in 0..<index.latitudes.count where !index.latitudes[d].isNaN {
                if Geo.distance(center, GeoPoint(lat: index.latitudes[d], lng: index.longitudes[d])) <= radius {
                    set.insert(UInt32(d))
                }
            }
            geo = set
        }
        let counter = FacetCounter(index: index)
        disjunctiveFields = counter.resolve(p.disjunctiveFacets)
        var baseParts: [FilterExpression] = []
        var groupParts: [Int: [FilterExpression]] = [:]
        for c in conjuncts {
            let attrs = c.attributes
            if attrs.count == 1, let i = index.facetByName[attrs.first!], disjunctiveFields.contains(i) {
                groupParts[i, default: []].append(c)
            } else {
                baseParts.append(c)
            }
        }
        if !conjuncts.isEmpty || geo != nil {
            var all = DocumentSet.all(index.documentCount)
            if let base = FilterExpression.allOf(baseParts) {
                let set = evaluator.evaluate(base)
                self.base = set
                all.formIntersection(set)
            }
            if let geo {
                if base == nil { base = geo } else { base!.formIntersection(geo) }
                all.formIntersection(geo)
            }
            for i in disjunctiveFields {
                guard let parts = groupParts[i], let e = FilterExpression.allOf(parts) else { continue }
                let set = evaluator.evaluate(e)
                groups.append((i, set))
                all.formIntersection(set)
            }
            self.all = all
        }
    }

    var isDisjunctive: Bool { !groups.isEmpty }
}
