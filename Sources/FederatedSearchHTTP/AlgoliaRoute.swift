import FederatedSearchServer

/// What a request's method and path ask for: Algolia's REST API (`/1/...`), the daemon's
/// federated endpoints, and the dashboard's files.
package enum AlgoliaRoute: Equatable, Sendable {
    case multipleQueries
    case getObjects
    case listIndices
    case search(index: String)
    /// `GET /1/indexes/{index}?query=...`: a search with its parameters in the query string.
    case searchByURL(index: String)
    case facetValues(index: String, facet: String)
    /// `browse`, its parameters in the body (POST) or the query string (GET).
    case browse(index: String, fromURL: Bool)
    case getObject(index: String, objectID: String)
    case getSettings(index: String)
    case setSettings(index: String)
    case batch(index: String)
    /// `POST /1/indexes/{index}`: add one object (its `objectID` chosen by the daemon if absent).
    case addObject(index: String)
    case replaceObject(index: String, objectID: String)
    case partialUpdate(index: String, objectID: String)
    case deleteObject(index: String, objectID: String)
    case deleteByQuery(index: String)
    case clear(index: String)
    /// `DELETE /1/indexes/{index}`.
    case deleteIndex(index: String)
    /// `POST /1/indexes/{index}/operation`: copy or move.
    case operation(index: String)
    case task(index: String?, taskID: String)
    case federated
    case federatedStream
    /// `POST` (or `GET`, the body in `?request=`) `/1/federated/subscribe`: a live search as
    /// server-sent events (the transport answers it: it needs the daemon's subscriptions).
    case federatedSubscribe
    /// A file of the dashboard (`index.html` for `/`).
    case dashboard(file: String)
    /// A CORS preflight.
    case preflight
    /// A known path with another method.
    case methodNotAllowed(allowed: String)
    case notFound

    /// The route of `method` on `path`.
    package static func match(_ method: HTTPRequest.Method, _ path: String) -> AlgoliaRoute {
        if method == .options { return .preflight }
        let s = URLForm.segments(path)
        guard s.first == "1" else {
            guard method == .get || method == .head else { return .methodNotAllowed(allowed: "GET, HEAD") }
            if s.isEmpty { return .dashboard(file: "index.html") }
            return s.count == 1 ? .dashboard(file: s[0]) : .notFound
        }
        let m: HTTPRequest.Method = method == .head ? .get : method
        let r = Array(s.dropFirst())
        // `r` names the path after /1/; `_` stands for any one segment.
        func at(_ pattern: String...) -> Bool {
            pattern.count == r.count && zip(pattern, r).allSatisfy { $0 == "_" || $0 == $1 }
        }
        func on(_ allowed: HTTPRequest.Method, _ route: AlgoliaRoute, else others: String) -> AlgoliaRoute {
            m == allowed ? route : .methodNotAllowed(allowed: others)
        }
        if at("federated") { return on(.post, .federated, else: "POST") }
        if at("federated", "stream") { return on(.post, .federatedStream, else: "POST") }
        // GET too: a browser's EventSource only GETs (the request in `?request=`).
        if at("federated", "subscribe") { return m == .post || m == .get ? .federatedSubscribe : .methodNotAllowed(allowed: "GET, POST") }
        if at("task", "_") { return on(.get, .task(index: nil, taskID: r[1]), else: "GET") }
        if at("indexes") { return on(.get, .listIndices, else: "GET") }
        if at("indexes", "*", "queries") { return on(.post, .multipleQueries, else: "POST") }
        if at("indexes", "*", "objects") { return on(.post, .getObjects, else: "POST") }
        if at("indexes", "_") {
            switch m {
            case .get: return .searchByURL(index: r[1])
            case .post: return .addObject(index: r[1])
            case .delete: return .deleteIndex(index: r[1])
            default: return .methodNotAllowed(allowed: "GET, POST, DELETE")
            }
        }
        if at("indexes", "_", "settings") {
            switch m {
            case .get: return .getSettings(index: r[1])
            case .put: return .setSettings(index: r[1])
            default: return .methodNotAllowed(allowed: "GET, PUT")
            }
        }
        if at("indexes", "_", "task", "_") { return on(.get, .task(index: r[1], taskID: r[3]), else: "GET") }
        if at("indexes", "_", "facets", "_", "query") { return on(.post, .facetValues(index: r[1], facet: r[3]), else: "POST") }
        if at("indexes", "_", "_", "partial") { return on(.post, .partialUpdate(index: r[1], objectID: r[2]), else: "POST") }
        if at("indexes", "_", "browse") {
            switch m {
            case .get: return .browse(index: r[1], fromURL: true)
            case .post: return .browse(index: r[1], fromURL: false)
            default: return .methodNotAllowed(allowed: "GET, POST")
            }
        }
        if at("indexes", "_", "_") {
            let actions: [String: AlgoliaRoute] = [
                "query": .search(index: r[1]), "batch": .batch(index: r[1]), "deleteByQuery": .deleteByQuery(index: r[1]),
                "clear": .clear(index: r[1]), "operation": .operation(index: r[1]),
            ]
            if let action = actions[r[2]], m == .post { return action }
            switch m {
            case .get: return .getObject(index: r[1], objectID: r[2])
            case .put: return .replaceObject(index: r[1], objectID: r[2])
            case .delete: return .deleteObject(index: r[1], objectID: r[2])
            default: return .methodNotAllowed(allowed: actions[r[2]] != nil ? "POST" : "GET, PUT, DELETE")
            }
        }
        return .notFound
    }

    /// Whether the route only searches (what a secured API key may do): searches, facet values,
    /// browse, the federated endpoints, and task status.
    package var isSearch: Bool {
        switch self {
        case .multipleQueries, .search, .searchByURL, .facetValues, .browse, .federated, .federatedStream, .federatedSubscribe, .task:
            true
        default: false
        }
    }

    /// The right an API key needs for this route, and the index it concerns (nil: none, or
    /// several named in the body, checked one by one).
    package var requirement: (right: APIKey.Right, index: String?)? {
        switch self {
        case .multipleQueries, .federated, .federatedStream, .federatedSubscribe: (.search, nil)
        case .getObjects: (.search, nil)
        case .listIndices: (.listIndexes, nil)
        case .search(let i), .searchByURL(let i), .facetValues(let i, _), .getObject(let i, _): (.search, i)
        case .browse(let i, _): (.browse, i)
        case .getSettings(let i): (.settings, i)
        case .setSettings(let i): (.editSettings, i)
        case .batch(let i), .addObject(let i), .replaceObject(let i, _), .partialUpdate(let i, _): (.addObject, i)
        case .deleteObject(let i, _): (.deleteObject, i)
        case .deleteByQuery(let i), .clear(let i), .deleteIndex(let i): (.deleteIndex, i)
        case .operation(let i): (.addObject, i)
        case .task, .dashboard, .preflight, .methodNotAllowed, .notFound: nil
        }
    }
}
