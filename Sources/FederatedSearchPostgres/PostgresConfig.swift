import FederatedSearchBackends
import FederatedSearchCore

/// The `postgres` backend's options, decoded and checked when the config is loaded.
///
/// ```json
/// {"backend": "postgres", "connection": "host=/run/postgresql dbname=shop",
///  "table": "products", "id": "objectid",
///  "searchable": {"title": "A", "short_description": "C"},
///  "facets": ["supplier", "price"], "attributes": ["title", "price"],
///  "language": "english", "maxConnections": 4, "listen": "products_changed"}
/// ```
///
/// Every column name is checked against `[A-Za-z_][A-Za-z0-9_]*` here and written quoted in
/// SQL; values (query words, filter values, the language) are always sent as parameters.
public struct PostgresConfig: Sendable, Equatable {
    /// The libpq connection string (`key=value` pairs or a `postgresql://` URI). Never logged.
    public var connection: String
    /// The table searched.
    public var table: SQLIdentifier
    /// The column holding each row's objectID.
    public var id: SQLIdentifier
    /// The searched columns with their full-text weights (`A` highest to `D`), in config order.
    public var searchable: [(column: SQLIdentifier, weight: Character)]
    /// The columns that can be faceted and filtered on.
    public var facets: [SQLIdentifier]
    /// The columns returned in each hit.
    public var attributes: [SQLIdentifier]
    /// The text-search configuration (`english`, `simple`, ...), sent as a `regconfig` parameter.
    public var language: String
    /// Idle connections kept open for reuse.
    public var maxConnections: Int
    /// The channel a trigger sends `NOTIFY` on when a row changes: while live subscriptions
    /// search this table, one connection `LISTEN`s on it and each notification runs them
    /// again (nil: they are polled, if `pollIntervalMs` is set).
    public var listen: SQLIdentifier?

    /// The weights PostgreSQL's `setweight` accepts.
    public static let weights: Set<Character> = ["A", "B", "C", "D"]

    /// Decodes the options; errors name the JSON path of the field at fault.
    public init(_ config: BackendConfig) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        connection = try r.requiredString("connection")
        table = try SQLIdentifier(try r.requiredString("table"), path: r.path(of: "table"))
        id = try SQLIdentifier(try r.requiredString("id"), path: r.path(of: "id"))
        guard let columns = try r.objectValue("searchable") else {
            throw SearchError(.missingField, "\(r.path(of: "searchable")): required field is missing")
        }
        searchable = []
        for e in columns {
            let path = "\(r.path(of: "searchable")).\(e.key)"
            let column = try SQLIdentifier(e.key, path: path)
            guard case .string(let w) = e.value, w.count == 1, let weight = w.first, Self.weights.contains(weight) else {
                throw SearchError(
                    .invalidField,
                    "\(path): expected a weight \"A\", \"B\", \"C\" or \"D\", got \(e.value.typeName == "string" ? "'\(e.value.stringValue ?? "")'" : e.value.typeName)"
                )
            }
            searchable.append((column, weight))
        }
        guard !searchable.isEmpty else {
            throw SearchError(.invalidField, "\(r.path(of: "searchable")): name at least one column")
        }
        facets = try Self.columns(&r, "facets") ?? []
        let defaultAttributes = searchable.map(\.column) + facets
        attributes =
            try Self.columns(&r, "attributes")
            ?? defaultAttributes.reduce(into: []) { out, c in
                if !out.contains(c) { out.append(c) }
            }
        language = try r.string("language") ?? "english"
        guard SQLIdentifier.isValid(language) else {
            throw SearchError(.invalidField, "\(r.path(of: "language")): expected a text search configuration name, got '\(language)'")
        }
        maxConnections = try r.int("maxConnections", in: 1...64) ?? 4
        if let channel = try r.string("listen") { listen = try SQLIdentifier(channel, path: r.path(of: "listen")) } else { listen = nil }
        try r.rejectUnknownKeys()
        guard !connection.isEmpty else { throw SearchError(.invalidField, "\(r.path(of: "connection")): must not be empty") }
    }

    /// The facet column named `attribute`, if it is one.
    public func facet(named attribute: String) -> SQLIdentifier? { facets.first { $0.name == attribute } }

    private static func columns(_ r: inout FieldReader, _ key: String) throws(SearchError) -> [SQLIdentifier]? {
        guard let names = try r.stringArray(key) else { return nil }
        var out: [SQLIdentifier] = []
        for (i, name) in names.enumerated() {
            out.append(try SQLIdentifier(name, path: "\(r.path(of: key))[\(i)]"))
        }
        return out
    }

    public static func == (a: PostgresConfig, b: PostgresConfig) -> Bool {
        a.connection == b.connection && a.table == b.table && a.id == b.id
            && a.searchable.elementsEqual(b.searchable) { $0.column == $1.column && $0.weight == $1.weight }
            && a.facets == b.facets && a.attributes == b.attributes && a.language == b.language
            && a.maxConnections == b.maxConnections && a.listen == b.listen
    }
}

/// A checked SQL identifier (a table or column name): `[A-Za-z_][A-Za-z0-9_]*`, at most 63
/// bytes, written double-quoted so that its case is kept and keywords are harmless.
public struct SQLIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The name as configured.
    public let name: String

    /// Checks `name`; `path` names the config field in the error.
    public init(_ name: String, path: String) throws(SearchError) {
        guard Self.isValid(name) else {
            throw SearchError(
                .invalidField, "\(path): '\(name)' is not a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters)")
        }
        self.name = name
    }

    /// Whether `name` is a plain identifier.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63 else { return false }
        func letter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95 }
        return letter(first) && bytes.allSatisfy { letter($0) || ($0 >= 48 && $0 <= 57) }
    }

    /// The quoted form used in SQL (safe: the name has no quote to escape).
    public var quoted: String { "\"\(name)\"" }

    public var description: String { name }
}
