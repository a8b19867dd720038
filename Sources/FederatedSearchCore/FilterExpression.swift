/// A comparison operator of a numeric filter.
public enum NumericOperator: String, Sendable, Equatable, CaseIterable {
    case lessThan = "<"
    case lessOrEqual = "<="
    case equal = "="
    case notEqual = "!="
    case greaterOrEqual = ">="
    case greaterThan = ">"

    /// Whether `lhs op rhs` holds.
    public func holds(_ lhs: Double, _ rhs: Double) -> Bool {
        switch self {
        case .lessThan: return lhs < rhs
        case .lessOrEqual: return lhs <= rhs
        case .equal: return lhs == rhs
        case .notEqual: return lhs != rhs
        case .greaterOrEqual: return lhs >= rhs
        case .greaterThan: return lhs > rhs
        }
    }
}

/// A parsed filter: the AST of Algolia's `filters` syntax, and the target of `facetFilters`,
/// `numericFilters` and `tagFilters`. Engines evaluate it; backends translate it.
public indirect enum FilterExpression: Sendable, Equatable {
    /// All of the operands hold.
    case and([FilterExpression])
    /// At least one operand holds.
    case or([FilterExpression])
    /// The operand does not hold.
    case not(FilterExpression)
    /// The attribute has this facet value (strings as written; numbers and booleans in
    /// their JSON spelling, so `year:1999` and `inStock:true` work).
    case facet(attribute: String, value: String)
    /// The attribute has a numeric value for which `value op operand` holds.
    case numeric(attribute: String, op: NumericOperator, value: Double)
    /// The attribute has a numeric value in `lower...upper` (both inclusive).
    case range(attribute: String, lower: Double, upper: Double)
    /// The document's `_tags` contain this tag.
    case tag(String)

    /// Every attribute the filter mentions (`_tags` for tag filters).
    public var attributes: Set<String> {
        switch self {
        case .and(let xs), .or(let xs): return xs.reduce(into: Set<String>()) { $0.formUnion($1.attributes) }
        case .not(let x): return x.attributes
        case .facet(let a, _), .numeric(let a, _, _), .range(let a, _, _): return [a]
        case .tag: return ["_tags"]
        }
    }

    /// Conjunction of optional parts, flattening nils and single operands.
    public static func allOf(_ parts: [FilterExpression?]) -> FilterExpression? {
        let present = parts.compactMap { $0 }
        switch present.count {
        case 0: return nil
        case 1: return present[0]
        default: return .and(present)
        }
    }
}

extension FilterExpression: CustomStringConvertible {
    /// The expression in `filters` syntax; parsing it gives back an equal expression.
    public var description: String {
        switch self {
        case .and(let xs): return "(" + xs.map(\.description).joined(separator: " AND ") + ")"
        case .or(let xs): return "(" + xs.map(\.description).joined(separator: " OR ") + ")"
        case .not(let x): return "NOT \(x)"
        case .facet(let a, let v): return "\(Self.quote(a)):\(Self.quote(v))"
        case .numeric(let a, let op, let v): return "\(Self.quote(a)) \(op.rawValue) \(Self.number(v))"
        case .range(let a, let lo, let hi): return "\(Self.quote(a)):\(Self.number(lo)) TO \(Self.number(hi))"
        case .tag(let t): return "_tags:\(Self.quote(t))"
        }
    }

    static func number(_ d: Double) -> String {
        var out: [UInt8] = []
        JSONWriter.writeNumber(d, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func quote(_ s: String) -> String {
        // A number-like value is quoted: bare, the parser would rewrite it as a number
        // ("1.50" → "1.5", "02134" → "2134"), and it would no longer name the same value.
        let plain =
            !s.isEmpty && s.unicodeScalars.allSatisfy { FilterLexer.isBareWordScalar($0) }
            && !["AND", "OR", "NOT", "TO"].contains(s) && Double(s) == nil
        if plain { return s }
        var out = "\""
        for c in s.unicodeScalars {
            if c == "\\" || c == "\"" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(c)
        }
        return out + "\""
    }
}
