/// One SQL statement with its parameters, sent with `PQsendQueryParams`: values only ever
/// travel as `$n` parameters, never inside `text`.
public struct SQLStatement: Sendable, Equatable {
    /// The statement, with `$1`, `$2`, ... placeholders.
    public var text: String
    /// The parameter values in placeholder order, in PostgreSQL's text format.
    public var parameters: [String]

    public init(text: String = "", parameters: [String] = []) {
        self.text = text
        self.parameters = parameters
    }

    /// Adds a parameter and returns its placeholder (`$n`).
    public mutating func bind(_ value: String) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// Adds a number parameter (in a form `float8` accepts) and returns its placeholder.
    public mutating func bind(_ value: Double) -> String {
        if value.isNaN { return bind("NaN") }
        if value.isInfinite { return bind(value > 0 ? "Infinity" : "-Infinity") }
        if value == value.rounded(), abs(value) < 1e15 { return bind(String(Int64(value))) }
        return bind("\(value)")
    }
}
