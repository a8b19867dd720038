import FederatedSearchServer

/// Cross-origin requests: a page served from an allowed origin may call the API.
package enum CORS {
    /// Why a request from a browser is refused, if it is: a page whose origin is neither the
    /// listener's own nor listed in `corsOrigins` (the body is read as JSON whatever its type,
    /// so a form or `text/plain` post from any page would otherwise reach the API without a
    /// preflight); and on a loopback listener, a `Host` that is not a loopback name (a DNS
    /// rebinding page). Clients that are not browsers send no `Origin`.
    package static func refusal(_ request: HTTPRequest, config: HTTPConfig) -> HTTPResponse? {
        let host = request.header("host") ?? ""
        if case .tcp = config.listen, config.listen.isLocalOnly, !host.isEmpty, !isLoopback(host: host) {
            return .error(403, "Host '\(host)' is not this loopback listener's; use 127.0.0.1, localhost or [::1]", code: .forbidden)
        }
        guard let origin = request.header("origin") else { return nil }
        let sameOrigin = !host.isEmpty && (origin == "http://\(host)" || origin == "https://\(host)")
        guard sameOrigin || config.corsOrigins.contains("*") || config.corsOrigins.contains(origin) else {
            return .error(403, "pages from \(origin) may not call this API; list the origin in http.corsOrigins", code: .forbidden)
        }
        return nil
    }

    /// Whether a `Host` header names this machine's loopback (with or without a port).
    static func isLoopback(host: String) -> Bool {
        let name: Substring
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            name = host[host.index(after: host.startIndex)..<close]
        } else {
            name = host.split(separator: ":", maxSplits: 1).first ?? ""
        }
        return HTTPConfig.Address.isLoopback(name)
    }

    /// The headers a response to `request` carries: none unless its `Origin` is allowed.
    package static func headers(for request: HTTPRequest, origins: [String]) -> [(name: String, value: String)] {
        guard let origin = request.header("origin"), !origins.isEmpty else { return [] }
        if origins.contains("*") { return [("Access-Control-Allow-Origin", "*")] }
        guard origins.contains(origin) else { return [] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    /// The answer to a preflight (`OPTIONS`): the methods and the headers the page asked for,
    /// when its origin is allowed; 204 either way, without the allow headers the browser
    /// then refuses the call.
    package static func preflight(_ request: HTTPRequest, allowed: Bool) -> HTTPResponse {
        var r = HTTPResponse(status: 204)
        guard allowed else { return r }
        r.headers.append(("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"))
        let asked =
            request.header("access-control-request-headers")
            ?? "content-type, x-algolia-api-key, x-algolia-application-id"
        r.headers.append(("Access-Control-Allow-Headers", asked))
        r.headers.append(("Access-Control-Max-Age", "86400"))
        return r
    }
}
