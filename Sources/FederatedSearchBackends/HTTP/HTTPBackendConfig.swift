import Foundation
import FederatedSearchCore

/// The `http` backend's options, decoded and checked when the config is loaded.
///
/// ```json
/// {"backend": "http", "method": "GET",
///  "url": "http://127.0.0.1:8080/search?q={query}&page={page}&size={hitsPerPage}",
///  "body": {"q": "{query}", "size": "{hitsPerPage}"},
///  "headers": {"Authorization": {"env": "SEARCH_TOKEN", "prefix": "Bearer "}},
///  "response": {"hits": "results.items", "nbHits": "results.total", "objectID": "id",
///               "score": "score", "maxScore": "results.max_score", "attributes": "doc",
///               "facets": "results.facets"},
///  "attributesForFaceting": ["genre"], "maxConnections": 4}
/// ```
public struct HTTPBackendConfig: Sendable {
    public var method: String
    public var url: StringTemplate
    public var body: BodyTemplate?
    public var headers: [(name: String, value: HeaderValue)]
    public var mapping: HTTPResponseMapping
    /// Connections kept open to the host (reused across queries).
    public var maxConnections: Int
    /// The URL template as written, for messages (its placeholders are not secrets).
    public var urlText: String
    /// The attributes the service facets and filters on, when the config lists them: a facet or
    /// tag filter condition on another matches nothing (as in Algolia) and is not sent; nil
    /// sends every filter as it is, and the service decides.
    public var attributesForFaceting: [String]?

    /// The HTTP methods accepted.
    public static let methods: Set<String> = ["GET", "POST", "PUT"]

    /// Decodes the options; `environment` supplies header secrets given with `env`.
    public init(_ config: BackendConfig, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        method = (try r.string("method") ?? "GET").uppercased()
        guard Self.methods.contains(method) else {
            throw SearchError(.invalidField, "\(r.path(of: "method")): expected GET, POST or PUT, got '\(method)'")
        }
        urlText = try r.requiredString("url")
        url = try StringTemplate(urlText, path: r.path(of: "url"))
        // The template must give an http(s) URL whatever the values are.
        let sample = url.render(TemplateValues(query: SearchQuery(text: "x")), encode: StringTemplate.percentEncode)
        guard let parsed = URL(string: sample), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
            parsed.host != nil
        else {
            throw SearchError(.invalidField, "\(r.path(of: "url")): expected an http:// or https:// URL, got '\(urlText)'")
        }
        body = try r.value("body").map { v throws(SearchError) in try BodyTemplate(v, path: r.path(of: "body")) }
        if body != nil, method == "GET" {
            throw SearchError(.invalidField, "\(r.path(of: "body")): a GET request has no body; use \"method\": \"POST\"")
        }
        headers = []
        for e in try r.objectValue("headers") ?? [:] {
            let value = try HeaderValue.decode(
                e.value, path: "\(r.path(of: "headers")).\(e.key)", environment: environment, resolvePath: config.resolvePath,
                readFile: BackendConfig.readFile)
            headers.append((e.key, value))
        }
        let response = try r.objectValue("response") ?? [:]
        mapping = try HTTPResponseMapping(response, path: r.path(of: "response"))
        maxConnections = try r.int("maxConnections", in: 1...256) ?? 4
        attributesForFaceting = try r.stringArray("attributesForFaceting")
        try r.rejectUnknownKeys()
    }
}
