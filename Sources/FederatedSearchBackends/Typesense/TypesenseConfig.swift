import Foundation
import FederatedSearchCore

/// The `typesense` backend's options, decoded and checked when the config is loaded.
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
    /// The server's base URL (`http://host:port`, no query string).
    public var url: URL
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
    /// Connections kept open to the server (reused across queries).
    public var maxConnections: Int

    /// Decodes the options; `environment` supplies an `apiKey` given with `env`.
    public init(_ config: BackendConfig, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        let urlText = try r.requiredString("url")
        guard let parsed = URLComponents(string: urlText), let scheme = parsed.scheme?.lowercased(),
            ["http", "https"].contains(scheme), parsed.host.map({ !$0.isEmpty }) == true,
            parsed.query == nil, parsed.fragment == nil, parsed.user == nil, let u = parsed.url
        else {
            throw SearchError(.invalidField, "\(r.path(of: "url")): expected an http:// or https:// base URL, got '\(urlText)'")
        }
        url = u
        collection = try r.requiredString("collection")
        guard !collection.isEmpty, !collection.contains("/") else {
            throw SearchError(.invalidField, "\(r.path(of: "collection")): expected a collection name")
        }
        apiKey = try HeaderValue.decode(
            try r.required("apiKey"), path: r.path(of: "apiKey"), environment: environment,
            resolvePath: config.resolvePath)
        queryBy = try Self.fields("queryBy", &r) ?? []
        guard !queryBy.isEmpty else {
            throw SearchError(.missingField, "\(r.path(of: "queryBy")): expected at least one field to search")
        }
        facetBy = try Self.fields("facetBy", &r)
        attributes = try Self.fields("attributes", &r)
        maxConnections = try r.int("maxConnections", in: 1...256) ?? 4
        try r.rejectUnknownKeys()
    }

    /// A list of field names, each a valid Typesense field name (see ``TypesenseFilter/isFieldName(_:)``).
    private static func fields(_ key: String, _ r: inout FieldReader) throws(SearchError) -> [String]? {
        guard let names = try r.stringArray(key, allowSingle: true) else { return nil }
        for (i, n) in names.enumerated() where !TypesenseFilter.isFieldName(n) {
            throw SearchError(.invalidField, "\(r.path(of: key))[\(i)]: '\(n)' is not a field name")
        }
        return names
    }

    /// The search endpoint, `{url}/collections/{collection}/documents/search`.
    public var searchURL: URL {
        url.appendingPathComponent("collections").appendingPathComponent(collection)
            .appendingPathComponent("documents").appendingPathComponent("search")
    }
}
