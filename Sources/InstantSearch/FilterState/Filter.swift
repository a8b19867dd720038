import FederatedSearchCore

/// One refinement: a facet value, a numeric comparison or range, or a tag; any of them negated.
public enum Filter: Hashable, Sendable {
    case facet(attribute: String, value: String, isNegated: Bool = false)
    case numeric(attribute: String, op: NumericOperator, value: Double, isNegated: Bool = false)
    case range(attribute: String, lower: Double, upper: Double, isNegated: Bool = false)
    case tag(String, isNegated: Bool = false)

    /// The attribute filtered on (`_tags` for a tag).
    public var attribute: String {
        switch self {
        case .facet(let a, _, _), .numeric(let a, _, _, _), .range(let a, _, _, _): return a
        case .tag: return "_tags"
        }
    }

    /// Whether the filter excludes what it names.
    public var isNegated: Bool {
        switch self {
        case .facet(_, _, let n), .numeric(_, _, _, let n), .range(_, _, _, let n), .tag(_, let n): return n
        }
    }

    /// The filter with its attribute renamed by `aliases` (unchanged when not listed).
    func renamed(_ aliases: [String: String]) -> Filter {
        guard let name = aliases[attribute] else { return self }
        switch self {
        case .facet(_, let v, let n): return .facet(attribute: name, value: v, isNegated: n)
        case .numeric(_, let op, let v, let n): return .numeric(attribute: name, op: op, value: v, isNegated: n)
        case .range(_, let lo, let hi, let n): return .range(attribute: name, lower: lo, upper: hi, isNegated: n)
        case .tag: return self
        }
    }

    /// The filter as the daemon's filter expression.
    public var expression: FilterExpression {
        let positive: FilterExpression
        switch self {
        case .facet(let a, let v, _): positive = .facet(attribute: a, value: v)
        case .numeric(let a, let op, let v, _): positive = .numeric(attribute: a, op: op, value: v)
        case .range(let a, let lo, let hi, _): positive = .range(attribute: a, lower: lo, upper: hi)
        case .tag(let t, _): positive = .tag(t)
        }
        return isNegated ? .not(positive) : positive
    }

    /// The filter in Algolia's syntax (`genres:Drama`, `year >= 2000`, `NOT supplier:HP`).
    public var text: String { expression.description }
}

/// Names a group of filters in a ``FilterState``: its filters are combined with AND, with OR
/// (a disjunctive facet: its counts ignore its own refinements), or as a hierarchical menu
/// (the deepest selected level only).
public enum FilterGroupID: Hashable, Sendable {
    case and(String)
    case or(String)
    case hierarchical(String)

    /// The group's name (often the attribute it refines).
    public var name: String {
        switch self {
        case .and(let n), .or(let n), .hierarchical(let n): return n
        }
    }
}
