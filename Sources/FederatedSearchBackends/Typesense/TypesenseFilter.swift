import FederatedSearchCore

/// Translates a parsed filter (`SearchParameters.filter`) into Typesense's `filter_by` syntax.
///
/// | filter | `filter_by` |
/// |---|---|
/// | `brand:Apple` (facet) | ``brand:=`Apple` `` (numbers and booleans unquoted: `year:=1999`) |
/// | `price >= 10` (numeric) | `price:>=10` (also `>`, `<`, `<=`, `=`, `!=`) |
/// | `price:10 TO 20` (range) | `price:[10..20]` |
/// | `a AND b`, `a OR b` | `(a && b)`, `(a \|\| b)` |
/// | `NOT brand:Apple` | ``brand:!=`Apple` `` |
/// | `NOT price = 10`, `NOT price != 10` | `price:!=10`, `price:=10` |
///
/// Anything else is `invalid_filter` naming what cannot be translated: `NOT` around other
/// expressions (Typesense has no general negation), tag filters (no `_tags`), a facet value
/// containing a backtick (a backtick-quoted value cannot contain one), and attribute names
/// that are not plain field names.
public enum TypesenseFilter {
    /// The `filter_by` expression for `filter`.
    public static func translate(_ filter: FilterExpression) throws(SearchError) -> String {
        switch filter {
        case .and(let xs): return try group(xs, " && ")
        case .or(let xs): return try group(xs, " || ")
        case .facet(let a, let v): return "\(try field(a)):=\(try value(v))"
        case .numeric(let a, let op, let v): return "\(try field(a)):\(op.rawValue)\(number(v))"
        case .range(let a, let lo, let hi): return "\(try field(a)):[\(number(lo))..\(number(hi))]"
        case .tag(let t):
            throw SearchError(.invalidFilter, "tag filter '_tags:\(t)' cannot be translated to Typesense (no _tags)")
        case .not(let inner):
            switch inner {
            case .facet(let a, let v): return "\(try field(a)):!=\(try value(v))"
            case .numeric(let a, .equal, let v): return "\(try field(a)):!=\(number(v))"
            case .numeric(let a, .notEqual, let v): return "\(try field(a)):=\(number(v))"
            default:
                throw SearchError(
                    .invalidFilter, "'\(filter)' cannot be translated to Typesense (NOT applies only to a facet value or = / !=)")
            }
        }
    }

    private static func group(_ xs: [FilterExpression], _ separator: String) throws(SearchError) -> String {
        var parts: [String] = []
        for x in xs { parts.append(try translate(x)) }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: separator) + ")"
    }

    /// Whether `name` can be written bare in Typesense parameters: letters, digits, `_`, `-`, `.`.
    public static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy { s in
                s.properties.isAlphabetic || ("0"..."9").contains(s) || s == "_" || s == "-" || s == "."
            }
    }

    private static func field(_ name: String) throws(SearchError) -> String {
        guard isFieldName(name) else {
            throw SearchError(.invalidFilter, "attribute '\(name)' cannot be used in a Typesense filter")
        }
        return name
    }

    /// A facet value: numbers and booleans bare (Typesense rejects quoted values on numeric
    /// fields), anything else in backticks.
    static func value(_ v: String) throws(SearchError) -> String {
        if v == "true" || v == "false" || isPlainNumber(v) { return v }
        guard !v.contains("`") else {
            throw SearchError(.invalidFilter, "facet value '\(v)' contains a backtick, which Typesense filters cannot quote")
        }
        return "`\(v)`"
    }

    /// `-12`, `3.5`: an optional minus, digits, at most one decimal point between digits.
    static func isPlainNumber(_ v: String) -> Bool {
        let body = v.hasPrefix("-") ? v.dropFirst() : Substring(v)
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { return false }
        return parts.allSatisfy { p in !p.isEmpty && p.unicodeScalars.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// A number as Typesense reads it: integers without a decimal point.
    static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}
