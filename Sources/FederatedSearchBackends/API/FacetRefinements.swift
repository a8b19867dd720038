import FederatedSearchCore

/// The facet values a filter refines, per attribute, in filter order.
///
/// Only refinements that restrict the results count: a `.facet` condition that stands
/// alone or inside `AND`/`OR` groups. Conditions under `NOT` are exclusions, not refinements.
public struct FacetRefinements: Sendable, Equatable {
    /// Refined values by attribute.
    public var values: [String: [String]]

    public init(_ values: [String: [String]] = [:]) { self.values = values }

    /// Whether nothing is refined.
    public var isEmpty: Bool { values.isEmpty }

    /// The refined attributes, sorted.
    public var attributes: [String] { values.keys.sorted() }

    /// The refinements of `filter` on the attributes in `facets`.
    public static func extract(from filter: FilterExpression?, facets: Set<String>) -> FacetRefinements {
        var out: [String: [String]] = [:]
        func walk(_ e: FilterExpression) {
            switch e {
            case .and(let xs), .or(let xs): xs.forEach(walk)
            case .facet(let attribute, let value) where facets.contains(attribute):
                if out[attribute]?.contains(value) != true { out[attribute, default: []].append(value) }
            case .not, .facet, .numeric, .range, .tag: break
            }
        }
        if let filter { walk(filter) }
        return FacetRefinements(out)
    }

    /// `filter` without its conditions on `attribute` (nil when nothing is left): the filter
    /// under which a disjunctive facet's values are counted.
    public static func filter(_ filter: FilterExpression?, removingRefinementsOf attribute: String) -> FilterExpression? {
        guard let filter else { return nil }
        switch filter {
        case .and(let xs):
            return FilterExpression.allOf(xs.map { Self.filter($0, removingRefinementsOf: attribute) })
        case .or(let xs):
            let kept = xs.compactMap { Self.filter($0, removingRefinementsOf: attribute) }
            // An OR that loses an operand no longer restricts anything on its own.
            guard kept.count == xs.count else { return nil }
            return kept.count == 1 ? kept[0] : .or(kept)
        case .facet(let a, _) where a == attribute:
            return nil
        case .not, .facet, .numeric, .range, .tag:
            return filter
        }
    }
}
