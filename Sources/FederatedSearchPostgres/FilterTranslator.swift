import FederatedSearchCore

/// Translates a parsed filter (`SearchParameters.filter`) into a SQL condition whose values
/// are bound as parameters of the statement being built.
///
/// | filter | SQL |
/// |---|---|
/// | `a:v` | `d."a"::text = $n` |
/// | `a op x` | `d."a" op $n::float8` (`!=` is `<>`) |
/// | `a:lo TO hi` | `d."a" BETWEEN $n::float8 AND $m::float8` |
/// | `_tags:t` | `$n = ANY(d."_tags")` (a `text[]` column named in `facets`) |
/// | `NOT x` | `NOT coalesce(x, false)` (rows where the column is NULL pass) |
/// | `x AND y`, `x OR y` | `(x AND y)`, `(x OR y)` |
///
/// Only columns listed in the config's `facets` are filtered on: a condition on any other
/// attribute is `FALSE` (it matches no row, and `NOT` of it every row), as Algolia answers a
/// filter on an attribute an index does not facet. A federated page sends one index's
/// refinements to every index, and a table without that column is not an error.
enum FilterTranslator {
    /// The condition for `filter`, binding its values into `statement`.
    static func condition(
        _ filter: FilterExpression, config: PostgresConfig, binding statement: inout SQLStatement
    ) -> String {
        switch filter {
        case .and(let xs):
            guard !xs.isEmpty else { return "TRUE" }
            var parts: [String] = []
            for x in xs { parts.append(condition(x, config: config, binding: &statement)) }
            return "(" + parts.joined(separator: " AND ") + ")"
        case .or(let xs):
            guard !xs.isEmpty else { return "FALSE" }
            var parts: [String] = []
            for x in xs { parts.append(condition(x, config: config, binding: &statement)) }
            return "(" + parts.joined(separator: " OR ") + ")"
        case .not(let x):
            return "(NOT coalesce(\(condition(x, config: config, binding: &statement)), false))"
        case .facet(let attribute, let value):
            guard let column = config.facet(named: attribute) else { return "FALSE" }
            return "(d.\(column.quoted)::text = \(statement.bind(value)))"
        case .numeric(let attribute, let op, let value):
            guard let column = config.facet(named: attribute) else { return "FALSE" }
            let sqlOp = op == .notEqual ? "<>" : op.rawValue
            return "(d.\(column.quoted) \(sqlOp) \(statement.bind(value))::float8)"
        case .range(let attribute, let lower, let upper):
            guard let column = config.facet(named: attribute) else { return "FALSE" }
            let lo = statement.bind(lower)
            let hi = statement.bind(upper)
            return "(d.\(column.quoted) BETWEEN \(lo)::float8 AND \(hi)::float8)"
        case .tag(let tag):
            guard let column = config.facet(named: "_tags") else { return "FALSE" }
            return "(\(statement.bind(tag)) = ANY(d.\(column.quoted)))"
        }
    }
}
