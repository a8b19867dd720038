import FederatedSearchCore

/// The filters of a ``FilterState`` at one moment: its groups in the order they were made.
public struct Filters: Sendable, Equatable {
    /// One group and its filters, in the order they were added.
    public struct Group: Sendable, Equatable {
        public let id: FilterGroupID
        public internal(set) var filters: [Filter]
    }

    public internal(set) var groups: [Group] = []

    public init() {}

    /// Whether no group holds a filter.
    public var isEmpty: Bool { groups.allSatisfy { $0.filters.isEmpty } }

    /// Every filter, with the group it is in.
    public var all: [(group: FilterGroupID, filter: Filter)] {
        groups.flatMap { g in g.filters.map { (g.id, $0) } }
    }

    /// Only the filters on `attributes` (named as the index names them, after `aliases`);
    /// nil keeps every filter.
    public func restricted(to attributes: Set<String>?, aliases: [String: String] = [:]) -> Filters {
        guard let attributes else { return self }
        var out = self
        for i in out.groups.indices {
            out.groups[i].filters.removeAll { !attributes.contains(aliases[$0.attribute] ?? $0.attribute) }
        }
        return out
    }

    /// The filters of one group.
    public func filters(in group: FilterGroupID) -> [Filter] { groups.first { $0.id == group }?.filters ?? [] }

    /// The conjunction of the groups, with attributes renamed by `aliases`: an `and` group's
    /// filters each, an `or` group's as one OR, a hierarchical group's deepest filter. Nil when
    /// there is no filter.
    public func expression(aliases: [String: String] = [:]) -> FilterExpression? {
        var parts: [FilterExpression] = []
        for g in groups where !g.filters.isEmpty {
            let filters = g.filters.map { $0.renamed(aliases).expression }
            switch g.id {
            case .and: parts += filters
            case .or: parts.append(filters.count == 1 ? filters[0] : .or(filters))
            case .hierarchical: parts.append(filters[filters.count - 1])
            }
        }
        return FilterExpression.allOf(parts)
    }

    /// The filters in Algolia's syntax, nil when there is none.
    public func text(aliases: [String: String] = [:]) -> String? { expression(aliases: aliases)?.description }

    /// The attributes whose counts must ignore their own refinements: those of the facet
    /// filters in `or` groups. The daemon counts them in the same pass as the hits (where
    /// InstantSearch sends one more query per refined facet).
    public func disjunctiveFacets(aliases: [String: String] = [:]) -> [String] {
        var out: [String] = []
        for g in groups {
            guard case .or = g.id else { continue }
            for f in g.filters {
                guard case .facet = f else { continue }
                let a = aliases[f.attribute] ?? f.attribute
                if !out.contains(a) { out.append(a) }
            }
        }
        return out
    }
}
