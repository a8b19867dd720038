#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import FederatedSearchServer

/// The HTTP API: Algolia's REST search API, the federated endpoints and the dashboard, on the
/// server core. One exchange in, its output out through `send` (a whole response, or a
/// stream); the listener owns the sockets.
package struct AlgoliaAPI: Sendable {
    /// The HTTP transport's peer, the daemon's own user: the key's rights are checked by the
    /// API, so the socket's peer-credential rules see a peer allowed everything.
    package static var transportPeer: PeerIdentity { PeerIdentity(PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid())) }

    package let config: HTTPConfig
    package let sessions: HTTPSessions
    /// The tasks of index administration (deleting, copying, moving), published when answered.
    package let administeredTasks = AdministeredTasks()
    /// When the daemon started (Algolia's index list has creation and update dates).
    package let startedAt: String
    /// The largest body accepted, in bytes.
    package let maxBodyBytes: Int

    package init(config: HTTPConfig, maxBodyBytes: Int, startedAt: String, sessions: HTTPSessions = HTTPSessions()) {
        self.config = config
        self.maxBodyBytes = maxBodyBytes
        self.startedAt = startedAt
        self.sessions = sessions
    }

    /// An exchange being answered: the request, the key that sent it, the core it is answered by.
    struct Exchange {
        let request: HTTPRequest
        /// The key that sent it (a secured key's parent), when keys are configured.
        let key: APIKey?
        /// The secured API key that sent it, with its restrictions.
        var secured: SecuredAPIKey? = nil
        var core: ServerCore
        /// Where its searches run (nil: on its task).
        let placement: (any SearchPlacement)?
        /// The executor its task prefers (a task it starts prefers it too).
        let executor: (any TaskExecutor)?
        /// Headers every response of the exchange carries (CORS).
        let headers: [(name: String, value: String)]
        /// The HTTP transport's peer (see ``AlgoliaAPI/transportPeer``).
        var peer: PeerIdentity { AlgoliaAPI.transportPeer }

        /// Whether the exchange's key (if keys are configured) may use `right` on `index`.
        func allows(_ right: APIKey.Right, index: String?, keysConfigured: Bool) -> Bool {
            guard keysConfigured else { return true }
            if let secured { return secured.allows(right, index: index) }
            return key?.allows(right, index: index) ?? false
        }

        /// `catalog` as this exchange's key sees it: with keys configured, only the indices the
        /// key has some right on, so that no answer (an unknown index's list of names, its
        /// suggestion) names an index the key may not use.
        func visible(_ catalog: Catalog, keysConfigured: Bool) -> Catalog {
            guard keysConfigured else { return catalog }
            return Catalog(
                entries: catalog.entries.filter { e in
                    APIKey.Right.allCases.contains { allows($0, index: e.id.index, keysConfigured: true) }
                })
        }

        /// `request` held to a secured key's restrictions: its filters ANDed with every
        /// search's and facet value search's, its search parameters in force.
        func restricted(_ request: Request) throws(SearchError) -> Request {
            guard let restriction = secured?.restriction else { return request }
            var r = request
            switch r.operation {
            case .search(var search):
                search.restriction = restriction
                r.operation = .search(search)
            case .searchForFacetValues(var facets):
                facets.params = try restriction.apply(to: facets.params)
                r.operation = .searchForFacetValues(facets)
            default: break
            }
            return r
        }
    }

    /// What the checks every request passes make of it: answered already (a preflight, the
    /// dashboard, a refusal), or an exchange to answer on its route.
    enum Admission {
        case answered(HTTPResponse)
        case exchange(AlgoliaRoute, Exchange)
    }

    /// Routes a request and checks it: its origin, its key and the key's rights, its size.
    func admit(
        _ request: HTTPRequest, core: ServerCore, placement: (any SearchPlacement)?, executor: (any TaskExecutor)?
    ) -> Admission {
        let cors = CORS.headers(for: request, origins: config.corsOrigins)
        let route = AlgoliaRoute.match(request.method, request.path)
        func done(_ response: HTTPResponse) -> Admission { .answered(finished(response, request, cors)) }
        switch route {
        case .preflight:
            return done(CORS.preflight(request, allowed: !cors.isEmpty))
        case .dashboard(let file):
            return done(
                config.dashboard ? Dashboard.file(file) : .error(404, "the dashboard is off (http.dashboard: false)", code: .unknownRoute))
        case .notFound:
            return done(.error(404, "no such endpoint: \(request.method.rawValue) \(request.path)", code: .unknownRoute))
        case .methodNotAllowed(let allowed):
            var r = HTTPResponse.error(
                405, "\(request.method.rawValue) is not allowed on \(request.path); use \(allowed)", code: .methodNotAllowed)
            r.headers.append(("Allow", allowed))
            return done(r)
        default: break
        }
        if let refused = CORS.refusal(request, config: config) { return done(refused) }
        let credentials: (key: APIKey?, secured: SecuredAPIKey?)
        switch authenticate(request) {
        case .failure(let response): return done(response)
        case .success(let c): credentials = c
        }
        var x = Exchange(request: request, key: credentials.key, core: core, placement: placement, executor: executor, headers: cors)
        x.secured = credentials.secured
        if !config.keys.isEmpty { x.core = core.with(catalog: x.visible(core.catalog, keysConfigured: true)) }
        if let (right, index) = route.requirement, !x.allows(right, index: index, keysConfigured: !config.keys.isEmpty) {
            return done(.error(403, "this API key may not \(right.rawValue)\(index.map { " on index '\($0)'" } ?? "")", code: .forbidden))
        }
        if x.secured != nil, !route.isSearch {
            return done(.error(403, "a secured API key may only search and browse", code: .forbidden))
        }
        guard request.body.count <= maxBodyBytes else {
            return done(.error(413, "the body is \(request.body.count) bytes; the limit is \(maxBodyBytes)", code: .bodyTooLarge))
        }
        return .exchange(route, x)
    }

    /// A response as sent: with the exchange's CORS headers, and no body for HEAD.
    func finished(_ response: HTTPResponse, _ request: HTTPRequest, _ cors: [(name: String, value: String)]) -> HTTPResponse {
        var r = response
        r.headers += cors
        if request.method == .head {
            r.body = []
            r.largeBody = nil
        }
        return r
    }

    /// Answers one request; its searches run where `placement` puts them (nil: on this task).
    /// `executor` is the one this task prefers, for the tasks it starts.
    package func respond(
        _ request: HTTPRequest, core: ServerCore, placement: (any SearchPlacement)? = nil,
        executor: (any TaskExecutor)? = nil, send: @escaping @Sendable (HTTPOutput) -> Void
    ) async {
        switch admit(request, core: core, placement: placement, executor: executor) {
        case .answered(let response):
            send(.whole(response))
        case .exchange(.federatedStream, let exchange):
            await stream(exchange, send: send)
        case .exchange(let route, let exchange):
            send(.whole(finished(await answer(route, exchange), request, exchange.headers)))
        }
    }

    /// Answers a search request (one index, or several queries) at once on the calling thread,
    /// with no task, when every query is `quick` (sources in memory that answer fast), or when
    /// the checks refuse it. Nil: answer it with ``respond`` (any other route is not admitted
    /// here, so it is admitted once).
    package func respondNow(
        _ request: HTTPRequest, core: ServerCore, quick: ([FederatedSource]) -> Bool
    ) -> HTTPResponse? {
        switch AlgoliaRoute.match(request.method, request.path) {
        case .search, .searchByURL, .multipleQueries: break
        default: return nil
        }
        switch admit(request, core: core, placement: nil, executor: nil) {
        case .answered(let response): return response
        case .exchange(let route, let x):
            let response: HTTPResponse?
            switch route {
            case .search(let index): response = searchOneNow(index, x, fromURL: false, quick: quick)
            case .searchByURL(let index): response = searchOneNow(index, x, fromURL: true, quick: quick)
            case .multipleQueries: response = multipleQueriesNow(x, quick: quick)
            default: response = nil
            }
            return response.map { finished($0, request, x.headers) }
        }
    }

    /// The key a request carries, in its headers or its query string (Algolia's names); nil
    /// when no keys are configured.
    func authenticate(_ request: HTTPRequest) -> Result<(key: APIKey?, secured: SecuredAPIKey?), HTTPResponse> {
        guard !config.keys.isEmpty else { return .success((nil, nil)) }
        var given = request.header("x-algolia-api-key")
        if given == nil {
            given = URLForm.pairs(request.query).first { $0.key.lowercased() == "x-algolia-api-key" }?.value
        }
        guard let given, !given.isEmpty else {
            return .failure(
                .error(
                    403, "an API key is required (the X-Algolia-API-Key header or the x-algolia-api-key query parameter)", code: .forbidden)
            )
        }
        if let key = config.keys.first(where: { $0.isValue(given) }) { return .success((key, nil)) }
        switch SecuredAPIKey.verify(given, keys: config.keys, clientAddress: request.clientAddress, referer: request.header("referer")) {
        case .success(let secured)?: return .success((secured.parent, secured))
        case .failure(let e)?: return .failure(.error(e))
        case nil: return .failure(.error(403, "Invalid Application-ID or API key", code: .forbidden))
        }
    }

    /// The answer of every route but the stream.
    func answer(_ route: AlgoliaRoute, _ x: Exchange) async -> HTTPResponse {
        switch route {
        case .multipleQueries: return await multipleQueries(x)
        case .search(let index): return await searchOne(index, body: x, fromURL: false)
        case .searchByURL(let index): return await searchOne(index, body: x, fromURL: true)
        case .facetValues(let index, let facet): return await facetValues(index, facet: facet, x)
        case .listIndices: return listIndices(x)
        case .browse(let index, let fromURL): return await browse(index, x, fromURL: fromURL)
        case .getObject(let index, let id): return await getObject(index, id: id, x)
        case .getObjects: return await getObjects(x)
        case .getSettings(let index): return await getSettings(index, x)
        case .setSettings(let index): return await setSettings(index, x)
        case .batch(let index): return await batch(index, x)
        case .addObject(let index): return await addObject(index, x)
        case .replaceObject(let index, let id): return await replaceObject(index, id: id, x)
        case .partialUpdate(let index, let id): return await partialUpdate(index, id: id, x)
        case .deleteObject(let index, let id): return await deleteObject(index, id: id, x)
        case .deleteByQuery(let index): return await deleteByQuery(index, x)
        case .clear(let index): return await clear(index, x)
        case .deleteIndex(let index): return await deleteIndex(index, x)
        case .operation(let index): return await copyOrMove(index, x)
        case .task(let index, let id): return task(index, id: id, x)
        case .federated: return await federated(x)
        case .federatedStream, .federatedSubscribe, .dashboard, .preflight, .methodNotAllowed, .notFound:
            return .error(500, "route \(route) is answered elsewhere", code: .internalError)
        }
    }

    /// The body as a JSON object, whatever the Content-Type says (browsers send text/plain
    /// to avoid a preflight); an empty body is an empty object.
    func bodyObject(_ x: Exchange) -> Result<JSONObject, HTTPResponse> { jsonObject(x.request.body) }

    /// A request's JSON object (nothing: an empty one), or the 400 that refuses it.
    func jsonObject(_ body: [UInt8]) -> Result<JSONObject, HTTPResponse> {
        if body.isEmpty { return .success([:]) }
        do {
            let value = try JSONParser.parse(body)
            guard case .object(let o) = value else {
                return .failure(.error(400, "the body must be a JSON object, got \(value.typeName)", code: .invalidRequest))
            }
            return .success(o)
        } catch {
            return .failure(.error(400, "the body is not valid JSON: \(error.reason) at byte \(error.offset)", code: .invalidJSON))
        }
    }

    /// The body's `requests` array (of at most `limit` `items`, named so in errors) and the body.
    func requests(_ x: Exchange, of items: String, limit: Int) -> Result<(body: JSONObject, items: [JSONValue]), HTTPResponse> {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return .failure(r)
        case .success(let o): body = o
        }
        switch body["requests"] {
        case .array(let list)?:
            guard list.count <= limit else {
                return .failure(.error(SearchError(.invalidField, "requests: \(list.count) \(items); at most \(limit)")))
            }
            return .success((body, list))
        case nil, .null?:
            return .failure(.error(SearchError(.missingField, "requests: required, an array of \(items)")))
        case let other?:
            return .failure(.error(SearchError(.invalidField, "requests: expected an array of \(items), got \(other.typeName)")))
        }
    }

    /// Runs a request through the server core and returns the lines it answered with.
    func run(_ given: Request, _ x: Exchange) async -> [OutgoingLine] {
        let request: Request
        do { request = try x.restricted(given) } catch {
            return [OutgoingLine(Frame.error(id: given.id, index: nil, error: error).line())]
        }
        let collector = LineCollector()
        await x.core.answer(request, peer: x.peer, placement: x.placement) { collector.append($0) }
        return collector.lines
    }
}
