import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore

/// The `typesense` backend as a ``SearchClient``: a collection of a Typesense server or
/// cluster searched through its REST API (`GET /collections/{collection}/documents/search`).
///
/// ``map(query:)`` builds a ``TypesenseRequest``, ``search(_:)`` sends it over the shared
/// ``HTTPTransport`` (connections reused; cancelling the task cancels the request; the
/// request's own timeout is the time left before the deadline), and ``map(results:)`` reads
/// the answer with ``TypesenseResponse``. Errors are source errors: `backend_http_error` for
/// a non-2xx status (with Typesense's `message`; never the API key), `backend_bad_response`
/// naming the path that failed, `backend_error` when the server cannot be reached, `timeout`,
/// and `invalid_filter` for a filter Typesense cannot express.
public struct TypesenseClient: SearchClient {
    /// The backend's answer: the parsed body and the request it answers.
    public struct Answer: Sendable {
        /// The parsed JSON answer.
        public var body: JSONValue
        /// The request it answers (paging, facets and tags for the mapping).
        public var request: TypesenseRequest
    }

    /// The searchable's name, prefixed to error messages.
    public let name: String
    /// The backend's options.
    public let config: TypesenseConfig
    /// The cluster's nodes and their health (one node for a single `url`).
    public let nodes: TypesenseNodes
    let transport: HTTPTransport
    /// Forwarded writes, one after another (see ``DocumentWritable``).
    public let writeOrder = WriteOrder()

    /// A client with its own connections to each node (up to `config.maxConnections`).
    public init(name: String, config: TypesenseConfig) {
        self.name = name
        self.config = config
        nodes = TypesenseNodes(nodes: config.nodes, nearest: config.nearestNode, healthcheckInterval: config.healthcheckInterval)
        transport = HTTPTransport(maxConnections: config.maxConnections)
    }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: Typesense.kind, documentCount: nil, searchableAttributes: config.queryBy,
            attributesForFaceting: config.facetBy ?? [])
    }

    public func map(query: SearchQuery) throws -> TypesenseRequest {
        do throws(SearchError) { return try TypesenseRequest(query: query, config: config) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    /// Sends the search to a node with failover (see ``send(deadline:_:)``).
    public func search(_ request: TypesenseRequest) async throws -> Answer {
        let (data, status, url) = try await send(deadline: request.deadline) { node throws(SearchError) in
            try self.urlRequest(request, on: node)
        }
        return try answer(data, status: status, request: request, url: url)
    }

    /// Sends a request (made for a node by `make`) to a node (see ``TypesenseNodes``); on a
    /// connection error, a timeout of the attempt or a 5xx answer, marks that node unhealthy
    /// and tries the next after `retryInterval`, up to `retries` (`numRetries`) more times and
    /// never past `deadline`. Any other answer is returned, with the URL it came from: a 4xx is the
    /// request's fault and is not retried.
    func send(
        deadline: ContinuousClock.Instant?, retries: Int? = nil, _ make: (URL) throws(SearchError) -> URLRequest
    ) async throws -> (data: Data, status: Int, url: URL?) {
        var retriesLeft = retries ?? config.numRetries
        while true {
            let (choice, node) = nodes.next()
            let urlRequest = try make(node)
            let failure: SearchError
            do {
                let (data, status) = try await attempt(urlRequest, deadline: deadline)
                if status < 500 {
                    nodes.record(choice, failure: nil)
                    return (data, status, urlRequest.url)
                }
                failure = Self.httpError(data, status: status, name: name, method: urlRequest.httpMethod ?? "GET", url: urlRequest.url)
            } catch let e as SearchError where e.code == .timeout || e.code == .backendError {
                failure = e
            }
            nodes.record(choice, failure: failure.message)
            let retryAt = ContinuousClock.now + config.retryInterval
            guard retriesLeft > 0, deadline.map({ retryAt < $0 }) ?? true else { throw failure }
            retriesLeft -= 1
            try await Task.sleep(until: retryAt)
        }
    }

    /// One attempt on one node, given at most `connectionTimeout` (and never past `deadline`):
    /// a node that accepts the connection and then stalls is a `timeout` of that node, and the
    /// search goes on to the next one, rather than waiting for the search's own deadline.
    private func attempt(_ request: URLRequest, deadline: ContinuousClock.Instant?) async throws -> (Data, Int) {
        let limit = deadline.map { min(config.connectionTimeout, $0 - .now) } ?? config.connectionTimeout
        let (transport, name) = (self.transport, self.name)
        return try await withThrowingTaskGroup(of: (Data, Int)?.self) { group in
            group.addTask { try await transport.perform(request, name: name) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else {
                throw SearchError(.timeout, "\(name): \(request.httpMethod ?? "GET") \(HTTPTransport.redacted(request.url)) timed out (connectionTimeoutSeconds)")
            }
            return answer
        }
    }

    /// A node's answer (anything but 5xx): the parsed body of a 2xx, else the request's error.
    private func answer(_ data: Data, status: Int, request: TypesenseRequest, url: URL?) throws -> Answer {
        let body = try? JSONParser.parse([UInt8](data))
        guard (200..<300).contains(status) else { throw Self.httpError(data, status: status, name: name, method: "GET", url: url) }
        guard let body else { throw SearchError(.backendBadResponse, "\(name): the answer is not JSON") }
        return Answer(body: body, request: request)
    }

    /// `backend_http_error` with the status and Typesense's `message` (never the API key).
    static func httpError(_ data: Data, status: Int, name: String, method: String, url: URL?) -> SearchError {
        var message = "\(name): HTTP \(status) from \(method) \(HTTPTransport.redacted(url))"
        if case .object(let o)? = try? JSONParser.parse([UInt8](data)), case .string(let m)? = o["message"] { message += ": \(m)" }
        return SearchError(.backendHTTPError, message)
    }

    public func map(results answer: Answer) throws -> SearchResults {
        do throws(SearchError) { return try TypesenseResponse.results(answer.body, request: answer.request) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    /// The HTTP request to `node`: the search URL with percent-encoded parameters.
    func urlRequest(_ request: TypesenseRequest, on node: URL) throws(SearchError) -> URLRequest {
        try self.request("GET", config.searchURL(on: node), query: request.items.map { ($0.name, $0.value) }, deadline: request.deadline)
    }

    /// A request to `base` with percent-encoded `query` parameters, the API key header, and a
    /// timeout of one attempt's (`connectionTimeout`), or the time left before `deadline` if
    /// that is shorter. (The attempt is also timed exactly, by ``attempt(_:deadline:)``.)
    func request(
        _ method: String, _ base: URL, query: [(String, String)], body: Data? = nil, contentType: String? = nil,
        deadline: ContinuousClock.Instant? = nil
    ) throws(SearchError) -> URLRequest {
        var text = base.absoluteString
        if !query.isEmpty { text += "?" + query.map { "\($0.0)=\(StringTemplate.percentEncode($0.1))" }.joined(separator: "&") }
        guard let url = URL(string: text) else { throw SearchError(.backendError, "\(name): cannot build the URL of \(method) \(base.path)") }
        var r = URLRequest(url: url)
        r.httpMethod = method
        r.httpBody = body
        r.setValue(config.apiKey.value, forHTTPHeaderField: "X-TYPESENSE-API-KEY")
        r.setValue("application/json", forHTTPHeaderField: "Accept")
        if let contentType { r.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let attemptEnds = ContinuousClock.now + config.connectionTimeout
        r.timeoutInterval = HTTPTransport.timeoutInterval(until: deadline.map { min($0, attemptEnds) } ?? attemptEnds)
        return r
    }
}

/// The `typesense` backend kind.
public enum Typesense {
    /// The kind's name in the config's `backend` field.
    public static let kind = "typesense"

    /// Builds the backend from its config options (see ``TypesenseConfig``).
    public static func make(
        _ config: BackendConfig, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SearchError) -> ClientSearchable<TypesenseClient> {
        ClientSearchable(TypesenseClient(name: config.name, config: try TypesenseConfig(config, environment: environment)), name: config.name)
    }
}

extension TypesenseClient: ReportsBackendStats {
    /// The cluster's nodes: each one's URL, health, requests and failures.
    public var backendStats: JSONObject { ["nodes": nodes.json()] }
}
