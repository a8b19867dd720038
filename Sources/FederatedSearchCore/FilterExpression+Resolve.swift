/// What a filter comes to for a source once its conditions on attributes the source lacks are
/// known to match nothing.
public enum ResolvedFilter: Sendable, Equatable {
    /// Every record passes: no filter is left to send.
    case everything
    /// No record passes: the source need not be asked.
    case nothing
    /// Records pass this filter, with no condition on a missing attribute left in it.
    case filter(FilterExpression)
}

extension FilterExpression {
    /// The filter with every condition for which `has` is false replaced by "matches nothing",
    /// then simplified (`x AND nothing` is nothing, `x OR nothing` is `x`, `NOT nothing` is
    /// everything): as Algolia answers a facet filter on an attribute an index does not facet,
    /// for a backend whose query language would refuse the attribute instead.
    public func resolved(has: (FilterExpression) -> Bool) -> ResolvedFilter {
        switch self {
        case .and(let parts): return Self.resolved(parts, has: has, absorbing: .nothing, neutral: .everything, joined: FilterExpression.and)
        case .or(let parts): return Self.resolved(parts, has: has, absorbing: .everything, neutral: .nothing, joined: FilterExpression.or)
        case .not(let inner):
            switch inner.resolved(has: has) {
            case .everything: return .nothing
            case .nothing: return .everything
            case .filter(let f): return .filter(.not(f))
            }
        case .facet, .numeric, .range, .tag:
            return has(self) ? .filter(self) : .nothing
        }
    }

    /// The parts of an AND (or an OR) resolved: one part that is `absorbing` makes the whole so,
    /// parts that are `neutral` are left out, and none left is `neutral`.
    private static func resolved(
        _ parts: [FilterExpression], has: (FilterExpression) -> Bool, absorbing: ResolvedFilter, neutral: ResolvedFilter,
        joined: ([FilterExpression]) -> FilterExpression
    ) -> ResolvedFilter {
        var kept: [FilterExpression] = []
        for part in parts {
            let r = part.resolved(has: has)
            if r == absorbing { return absorbing }
            if case .filter(let f) = r { kept.append(f) }
        }
        return kept.isEmpty ? neutral : .filter(kept.count == 1 ? kept[0] : joined(kept))
    }

    /// The filter with every attribute renamed by `rename` (`_tags` conditions unchanged).
    public func renamingAttributes(_ rename: (String) -> String) -> FilterExpression {
        switch self {
        case .and(let parts): return .and(parts.map { $0.renamingAttributes(rename) })
        case .or(let parts): return .or(parts.map { $0.renamingAttributes(rename) })
        case .not(let inner): return .not(inner.renamingAttributes(rename))
        case .facet(let a, let v): return .facet(attribute: rename(a), value: v)
        case .numeric(let a, let op, let v): return .numeric(attribute: rename(a), op: op, value: v)
        case .range(let a, let lo, let hi): return .range(attribute: rename(a), lower: lo, upper: hi)
        case .tag: return self
        }
    }
}
