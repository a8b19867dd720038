import FederatedSearchEventLoop
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request as a backend builds it for ``HTTPTransport``: the server's address taken
/// apart once, and the path and query already percent-encoded, so that a plain `http://`
/// request goes to the event loop without a URL being built or parsed.
public struct OutgoingHTTPRequest: Sendable {
    public var method: String
    /// `http` or `https`.
    public var scheme: String
    public var host: String
    public var port: Int
    /// The path, percent-encoded, starting with `/`.
    public var path: String
    /// The query string, percent-encoded, without its `?` (nil for none).
    public var query: String?
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// How long the request may take (an exact timer on the event loop; whole seconds, rounded
    /// up, through URLSession).
    public var timeout: Duration

    /// A request to `base` (a server's base URL, its own path kept before `path`).
    /// `path` is percent-encoded; `query` holds raw names and values, encoded here.
    public init(
        _ method: String, base: URL, path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: [UInt8]? = nil, timeout: Duration
    ) {
        self.method = method
        scheme = base.scheme?.lowercased() ?? "http"
        host = base.host ?? ""
        port = base.port ?? (scheme == "https" ? 443 : 80)
        var prefix = base.path
        while prefix.hasSuffix("/") { prefix.removeLast() }
        self.path = (prefix.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? prefix) + path
        self.query = query.isEmpty ? nil : query.map { "\($0.0)=\(StringTemplate.percentEncode($0.1))" }.joined(separator: "&")
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// A URLRequest taken apart, for the event loop; nil for what only URLSession takes (no
    /// URL or host, a body stream, a user or password in the URL).
    init?(_ request: URLRequest) {
        guard let url = request.url, let host = url.host, !host.isEmpty, url.user == nil, url.password == nil,
            request.httpBodyStream == nil, let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return nil }
        method = request.httpMethod ?? "GET"
        scheme = url.scheme?.lowercased() ?? "http"
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = url.port ?? (scheme == "https" ? 443 : 80)
        path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        query = components.percentEncodedQuery
        headers = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        body = request.httpBody.map { [UInt8]($0) }
        timeout = .milliseconds(Int64((request.timeoutInterval * 1000).rounded(.up)))
    }

    /// The URL without its query string, for messages (the query repeats the user's input).
    public var displayURL: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(h)\(port == defaultPort ? "" : ":\(port)")\(path)"
    }

    /// The request for URLSession (the `https://` path); nil if the URL cannot be formed.
    var urlRequest: URLRequest? {
        guard let url = URL(string: displayURL + (query.map { "?" + $0 } ?? "")) else { return nil }
        var r = URLRequest(url: url)
        r.httpMethod = method
        r.httpBody = body.map { Data($0) }
        for (name, value) in headers { r.setValue(value, forHTTPHeaderField: name) }
        let c = timeout.components
        r.timeoutInterval = max(1, (Double(c.seconds) + Double(c.attoseconds) / 1e18).rounded(.up))
        return r
    }

    /// The exchange on the event loop, for a plain `http://` request.
    func exchange(pool: UInt64, maxConnections: Int) -> EventHTTPExchange? {
        guard scheme == "http", !host.isEmpty, (1...65535).contains(port) else { return nil }
        return EventHTTPExchange(
            method: method, host: host, port: UInt16(port), target: path + (query.map { "?" + $0 } ?? ""),
            headers: headers, body: body, timeout: timeout, pool: pool, maxConnections: maxConnections)
    }
}
