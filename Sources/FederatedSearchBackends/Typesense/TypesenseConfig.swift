import Foundation
import FederatedSearchCore

/// The `typesense` backend's options, decoded and checked when the config is loaded.
///
/// One server (`url`), or a cluster as Typesense's own clients describe it: `nodes` (URLs, or
/// `{"url": ...}` objects), an optional `nearestNode` tried first, `numRetries`,
/// `retryIntervalSeconds`, `healthcheckIntervalSeconds` and `connectionTimeoutSeconds` (see
/// ``TypesenseNodes`` for how a request picks its node and fails over).
///
/// ```json
/// {"backend": "typesense", "url": "http://127.0.0.1:8108", "collection": "products",
///  "apiKey": {"env": "TYPESENSE_API_KEY"},
///  "queryBy": ["title", "short_description"],
///  "facetBy": ["supplier", "price"], "attributes": ["title", "price", "supplier"],
///  "maxConnections": 4}
/// ```
///
/// `apiKey` is a string, or a secret `{"env": "VAR"}` / `{"file": "path"}` (read like the
/// `http` kind's secret headers, and likewise never logged or put in messages). Unknown keys
/// are rejected with their JSON path.
public struct TypesenseConfig: Sendable {
    /// The servers' base URLs (`http://host:port`, no query string): `url` alone, or `nodes`.
    public var nodes: [URL]
    /// The node tried before the others while it is healthy (a cluster's node in this
    /// machine's region, say); it may be one of `nodes` or not.
    public var nearestNode: URL?
    /// How many more attempts a request may make after its first fails (by default each
    /// node once: none for a single server).
    public var numRetries: Int
    /// The wait before the next node is tried.
    public var retryInterval: Duration
    /// How long a node that failed is skipped before requests try it again.
    public var healthcheckInterval: Duration
    /// How long one attempt may take to connect and answer before the next node is tried
    /// (never past the search's deadline).
    public var connectionTimeout: Duration
    /// How long a forwarded write is tried again, node after node, before it fails (a
    /// cluster takes no writes while it elects a new leader).
    public var writeTimeout: Duration
    /// The collection searched.
    public var collection: String
    /// The key sent as `X-TYPESENSE-API-KEY`.
    public var apiKey: HeaderValue
    /// The fields searched (`query_by`), in order of importance.
    public var queryBy: [String]
    /// The facets that may be requested; nil allows any facet the query asks for.
    public var facetBy: [String]?
    /// The fields returned in hits (`include_fields`); nil returns whole documents.
    public var attributes: [String]?
    /// The numeric fields of the collection's schema (for filters, sorting and facet stats);
    /// only used when `createIndex` makes the collection (see ``collectionSchema``).
    public var numericFields: [String]
    /// The fields of that schema whose values are arrays of strings (`string[]`); the
    /// others are single strings.
    public var arrayFields: [String]
    /// Connections kept open to the server (reused across queries).
    public var maxConnections: Int

    /// The fields this config says the collection has, when it lists its facets (`facetBy`):
    /// what filters are checked against until the collection's schema has been read. Nil
    /// without `facetBy`: the config does not say, and filters go to Typesense as they are.
    public var declaredFields: Set<String>? {
        guard let facetBy else { return nil }
        return Set(facetBy + queryBy + numericFields + arrayFields + (attributes ?? []) + ["id"])
    }

    /// Decodes the options; `environment` supplies an `apiKey` given with `env`.
    public init(_ config: BackendConfig, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        let single = try r.string("url")
        let listed: [JSONValue]?
        switch r.value("nodes") {
        case nil: listed = nil
        case .array(let a)?: listed = a
        case let other?: throw SearchError(.invalidField, "\(r.path(of: "nodes")): expected an array of nodes, got \(other.typeName)")
        }
        switch (single, listed) {
        case (let text?, nil):
            nodes = [try Self.baseURL(text, path: r.path(of: "url"))]
        case (nil, let items?):
            guard !items.isEmpty else { throw SearchError(.invalidField, "\(r.path(of: "nodes")): expected at least one node") }
            nodes = try items.enumerated().map { i, item throws(SearchError) in
                try Self.node(item, path: "\(r.path(of: "nodes"))[\(i)]")
            }
        case (_?, _?):
            throw SearchError(.invalidField, "\(r.path(of: "nodes")): give either url (one server) or nodes (a cluster), not both")
        case (nil, nil):
            throw SearchError(.missingField, "\(r.path(of: "url")): expected the server's URL, or nodes for a cluster")
        }
        let nearestPath = r.path(of: "nearestNode")
        nearestNode = try r.value("nearestNode").map { v throws(SearchError) in try Self.node(v, path: nearestPath) }
        numRetries = try r.int("numRetries", in: 0...100) ?? nodes.count - 1 + (nearestNode == nil ? 0 : 1)
        retryInterval = try Self.seconds("retryIntervalSeconds", &r, in: 0...60) ?? .milliseconds(100)
        healthcheckInterval = try Self.seconds("healthcheckIntervalSeconds", &r, in: 0...86_400) ?? .seconds(60)
        connectionTimeout = try Self.seconds("connectionTimeoutSeconds", &r, in: 0.001...600) ?? .seconds(5)
        writeTimeout = try Self.seconds("writeTimeoutSeconds", &r, in: 0.001...3600) ?? .seconds(30)
        collection = try r.requiredString("collection")
        guard !collection.isEmpty, !collection.contains("/") else {
            throw SearchError(.invalidField, "\(r.path(of: "collection")): expected a collection name")
        }
        apiKey = try HeaderValue.decode(
            try r.required("apiKey"), path: r.path(of: "apiKey"), environment: environment,
            resolvePath: config.resolvePath, readFile: BackendConfig.readFile)
        queryBy = try Self.fields("queryBy", &r) ?? []
        guard !queryBy.isEmpty else {
            throw SearchError(.missingField, "\(r.path(of: "queryBy")): expected at least one field to search")
        }
        facetBy = try Self.fields("facetBy", &r)
        attributes = try Self.fields("attributes", &r)
        numericFields = try Self.fields("numericFields", &r) ?? []
        if let both = numericFields.first(where: queryBy.contains) {
            throw SearchError(
                .invalidField, "\(r.path(of: "numericFields")): '\(both)' is in queryBy too, and Typesense searches only text fields")
        }
        arrayFields = try Self.fields("arrayFields", &r) ?? []
        if let both = arrayFields.first(where: numericFields.contains) {
            throw SearchError(
                .invalidField, "\(r.path(of: "arrayFields")): '\(both)' is in numericFields too; arrays of numbers are not supported here")
        }
        maxConnections = try r.int("maxConnections", in: 1...256) ?? 4
        try r.rejectUnknownKeys()
    }

    /// A node: its base URL as a string, or `{"url": ...}`.
    private static func node(_ value: JSONValue, path: String) throws(SearchError) -> URL {
        switch value {
        case .string(let text): return try baseURL(text, path: path)
        case .object(let o):
            var r = FieldReader(o, path: path)
            let url = try baseURL(try r.requiredString("url"), path: r.path(of: "url"))
            try r.rejectUnknownKeys()
            return url
        default: throw SearchError(.invalidField, "\(path): expected a URL or {\"url\": ...}, got \(value.typeName)")
        }
    }

    /// An http:// or https:// base URL with a host and no query, fragment or user.
    private static func baseURL(_ text: String, path: String) throws(SearchError) -> URL {
        guard let parsed = URLComponents(string: text), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), parsed.host.map({ !$0.isEmpty }) == true,
            parsed.query == nil, parsed.fragment == nil, parsed.user == nil, let u = parsed.url
        else {
            throw SearchError(.invalidField, "\(path): expected an http:// or https:// base URL, got '\(text)'")
        }
        return u
    }

    /// A duration given in (fractional) seconds.
    private static func seconds(_ key: String, _ r: inout FieldReader, in range: ClosedRange<Double>) throws(SearchError) -> Duration? {
        guard let v = try r.number(key) else { return nil }
        guard range.contains(v) else {
            throw SearchError(.invalidField, "\(r.path(of: key)): expected seconds in \(range.lowerBound)...\(range.upperBound), got \(v)")
        }
        return .milliseconds(Int64((v * 1000).rounded()))
    }

    /// A list of field names, each a valid Typesense field name (see ``TypesenseFilter/isFieldName(_:)``).
    private static func fields(_ key: String, _ r: inout FieldReader) throws(SearchError) -> [String]? {
        guard let names = try r.stringArray(key, allowSingle: true) else { return nil }
        for (i, n) in names.enumerated() where !TypesenseFilter.isFieldName(n) {
            throw SearchError(.invalidField, "\(r.path(of: key))[\(i)]: '\(n)' is not a field name")
        }
        return names
    }

    /// The collection's schema as `createIndex` makes it (`POST /collections`): each `queryBy`
    /// and `facetBy` field a `string` (`string[]` if in `arrayFields`), each `numericFields`
    /// field a `float` (integers fit), each `facetBy` field a facet. Every field is optional,
    /// so a document lacking one is still taken; fields outside the schema are stored and
    /// returned, but not indexed. The types are concrete: an empty collection whose fields
    /// are `string*` (typed by the first document) answers every search with 404.
    public var collectionSchema: JSONObject {
        var fields: [JSONValue] = []
        var seen = Set<String>()
        let facets = Set(facetBy ?? [])
        for name in queryBy + (facetBy ?? []) + numericFields where seen.insert(name).inserted {
            let type = numericFields.contains(name) ? "float" : arrayFields.contains(name) ? "string[]" : "string"
            var f: JSONObject = ["name": .string(name), "type": .string(type)]
            if facets.contains(name) { f["facet"] = true }
            f["optional"] = true
            fields.append(.object(f))
        }
        return ["name": .string(collection), "fields": .array(fields)]
    }

    /// The search endpoint's path on a node, `/collections/{collection}/documents/search`.
    public var searchPath: String {
        "/collections/\(collection.addingPercentEncoding(withAllowedCharacters: Self.segmentCharacters) ?? collection)/documents/search"
    }

    /// What a path segment keeps unencoded: the path's characters but `/`.
    static let segmentCharacters = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
}
