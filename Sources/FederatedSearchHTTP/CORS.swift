/// Cross-origin requests: a page served from an allowed origin may call the API.
package enum CORS {
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
        let asked = request.header("access-control-request-headers")
            ?? "content-type, x-algolia-api-key, x-algolia-application-id"
        r.headers.append(("Access-Control-Allow-Headers", asked))
        r.headers.append(("Access-Control-Max-Age", "86400"))
        return r
    }
}
