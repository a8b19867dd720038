import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
import FederatedSearchProtocol

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
    /// The cluster's nodes and their health for searches (one node for a single `url`).
    public let nodes: TypesenseNodes
    /// The same nodes' health for forwarded writes, kept apart: a follower refusing writes
    /// during a leader election is not a node that cannot search.
    public let writeNodes: TypesenseNodes
    let transport: HTTPTransport
    /// Forwarded writes, one after another (see ``DocumentWritable``).
    public let writeOrder = WriteOrder()
    /// The collection's document count as last seen (see ``knownDocumentCount``).
    let documentCount = TypesenseDocumentCount()

    /// A client with its own connections to each node (up to `config.maxConnections`).
    public init(name: String, config: TypesenseConfig) {
        self.name = name
        self.config = config
        nodes = TypesenseNodes(
            nodes: config.nodes, nearest: config.nearestNode, healthcheckInterval: config.healthcheckInterval,
            label: "\(name): searches")
        writeNodes = TypesenseNodes(
            nodes: config.nodes, nearest: config.nearestNode, healthcheckInterval: config.healthcheckInterval, label: "\(name): writes")
        transport = HTTPTransport(maxConnections: config.maxConnections)
        _ = knownDocumentCount  // asks the collection now, so the first `indices` has it
    }

    /// Every node is plain `http://`, served by the outgoing HTTP loop.
    public var waitsOnlyOnHTTPLoop: Bool { config.nodes.allSatisfy { $0.scheme == "http" } }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: Typesense.kind, documentCount: knownDocumentCount, searchableAttributes: config.queryBy,
            attributesForFaceting: config.facetBy ?? [])
    }

    public func map(query: SearchQuery) throws -> TypesenseRequest {
        do throws(SearchError) {
            return try TypesenseRequest(query: query, config: config, fields: documentCount.fields ?? config.declaredFields)
        } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    /// Sends the search to a node with failover (see ``send(deadline:_:)``).
    public func search(_ request: TypesenseRequest) async throws -> Answer {
        if request.matchesNothing {
            return Answer(body: ["found": 0, "hits": [], "out_of": .number(Double(documentCount.value ?? 0))], request: request)
        }
        let (data, status, url) = try await send(deadline: request.deadline) { node in self.searchRequest(request, on: node) }
        return try answer(data, status: status, request: request, url: url)
    }

    /// Sends a request (made for a node by `make`) to a node (see ``TypesenseNodes``); on a
    /// connection error, a timeout of the attempt or a 5xx answer, marks that node unhealthy
    /// and tries the next after `retryInterval`, up to `retries` (`numRetries`) more times and
    /// never past `deadline`. Any other answer is returned, with the URL it came from: a 4xx is the
    /// request's fault and is not retried. While another node can still be tried, an attempt
    /// gets at most half of what is left before `deadline` (after the retry interval), so a
    /// node that hangs never takes the whole deadline and the next one is always tried.
    func send(
        deadline: ContinuousClock.Instant?, retries: Int? = nil, health: TypesenseNodes? = nil,
        _ make: (URL) throws(SearchError) -> OutgoingHTTPRequest
    ) async throws -> (data: [UInt8], status: Int, url: String) {
        let nodes = health ?? self.nodes
        var retriesLeft = retries ?? config.numRetries
        while true {
            let (choice, node) = nodes.next()
            let request = try make(node)
            let failure: SearchError
            // The time this attempt may take: its share of the deadline when another may follow.
            let attemptDeadline = deadline.map { d -> ContinuousClock.Instant in
                let left = d - .now - config.retryInterval
                guard retriesLeft > 0, config.nodes.count > 1, left > .zero else { return d }
                return .now + left / 2
            }
            do {
                let (data, status) = try await attempt(request, deadline: attemptDeadline)
                if status < 500 {
                    nodes.record(choice, failure: nil)
                    return (data, status, request.displayURL)
                }
                failure = Self.httpError(data, status: status, name: name, method: request.method, url: request.displayURL)
            } catch let e as SearchError where e.code == .timeout || e.code == .backendError {
                failure = e
            }
            nodes.record(choice, failure: failure.message)
            let retryAt = ContinuousClock.now + config.retryInterval
            guard retriesLeft > 0, deadline.map({ retryAt < $0 }) ?? true else {
                // A write is tried until its deadline: say so, as it may have taken a while.
                if retries == .max {
                    throw SearchError(failure.code, "\(failure.message) (tried again, node after node, for writeTimeoutSeconds)")
                }
                throw failure
            }
            retriesLeft -= 1
            try await Task.sleep(until: retryAt)
        }
    }

    /// One attempt on one node, given at most `connectionTimeout` (and never past `deadline`):
    /// a node that accepts the connection and then stalls is a `timeout` of that node, and the
    /// search goes on to the next one, rather than waiting for the search's own deadline. On
    /// the event loop the request's own timer is exact; through URLSession (whole seconds) a
    /// timer task races it.
    private func attempt(_ request: OutgoingHTTPRequest, deadline: ContinuousClock.Instant?) async throws -> ([UInt8], Int) {
        let limit = max(.milliseconds(1), deadline.map { min(config.connectionTimeout, $0 - .now) } ?? config.connectionTimeout)
        let (transport, name) = (self.transport, self.name)
        let request = {
            var r = request
            r.timeout = limit
            return r
        }()
        if transport.timesExactly(request) {
            do { return try await transport.perform(request, name: name) } catch let e as SearchError where e.code == .timeout {
                throw SearchError(.timeout, "\(e.message) (connectionTimeoutSeconds)")
            }
        }
        return try await withThrowingTaskGroup(of: ([UInt8], Int)?.self) { group in
            group.addTask { try await transport.perform(request, name: name) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else {
                throw SearchError(.timeout, "\(name): \(request.method) \(request.displayURL) timed out (connectionTimeoutSeconds)")
            }
            return answer
        }
    }

    /// A node's answer (anything but 5xx): the parsed body of a 2xx, else the request's error.
    private func answer(_ data: [UInt8], status: Int, request: TypesenseRequest, url: String) throws -> Answer {
        let body = try? TypesenseResponse.parseAnswer(data)
        guard (200..<300).contains(status) else { throw Self.httpError(data, status: status, name: name, method: "GET", url: url) }
        guard let body else { throw SearchError(.backendBadResponse, "\(name): the answer is not JSON") }
        // `out_of` is the collection's size, whatever the search matched.
        if case .object(let o) = body, let total = o["out_of"]?.intValue { documentCount.record(total) }
        return Answer(body: body, request: request)
    }

    /// `backend_http_error` with the status and Typesense's `message` (never the API key).
    static func httpError(_ data: [UInt8], status: Int, name: String, method: String, url: String) -> SearchError {
        var message = "\(name): HTTP \(status) from \(method) \(url)"
        guard case .object(let o)? = try? JSONParser.parse(data), case .string(let m)? = o["message"] else {
            return SearchError(.backendHTTPError, message)
        }
        if let field = unknownFilterField(m) {
            // The request's filter, not the backend, is at fault: a filter error naming the field.
            return SearchError(.invalidFilter, "filters: '\(field)' is not a field \(name) can filter on (Typesense: \(m))")
        }
        message += ": \(m)"
        return SearchError(.backendHTTPError, message)
    }

    /// The field of Typesense's answer to a filter on a field its schema lacks ("Could not find a
    /// filter field named `x` in the schema."), as 0.24 words it; nil for any other message.
    static func unknownFilterField(_ message: String) -> String? {
        let prefix = "Could not find a filter field named `"
        guard message.hasPrefix(prefix), let end = message.dropFirst(prefix.count).firstIndex(of: "`") else { return nil }
        return String(message[message.index(message.startIndex, offsetBy: prefix.count)..<end])
    }

    public func map(results answer: Answer) throws -> SearchResults {
        do throws(SearchError) { return try TypesenseResponse.results(answer.body, request: answer.request) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    /// The HTTP request to `node`: the search path with percent-encoded parameters.
    func searchRequest(_ request: TypesenseRequest, on node: URL) -> OutgoingHTTPRequest {
        outgoing("GET", on: node, path: config.searchPath, query: request.items.map { ($0.name, $0.value) })
    }

    /// A request on `node` for the path `/<segments...>`, each segment percent-encoded whole
    /// (an id may hold `/`), with `query` parameters, the API key header and an attempt's
    /// timeout (``attempt(_:deadline:)`` narrows it to the deadline).
    func request(
        _ method: String, on node: URL, _ segments: [String], query: [(String, String)] = [], body: [UInt8]? = nil,
        contentType: String? = nil
    ) throws(SearchError) -> OutgoingHTTPRequest {
        var path = ""
        for segment in segments {
            guard let encoded = segment.addingPercentEncoding(withAllowedCharacters: TypesenseConfig.segmentCharacters) else {
                throw SearchError(.invalidField, "\(name): cannot put '\(segment)' in a URL")
            }
            path += "/" + encoded
        }
        return outgoing(method, on: node, path: path, query: query, body: body, contentType: contentType)
    }

    private func outgoing(
        _ method: String, on node: URL, path: String, query: [(String, String)], body: [UInt8]? = nil, contentType: String? = nil
    ) -> OutgoingHTTPRequest {
        var headers = [("X-TYPESENSE-API-KEY", config.apiKey.value), ("Accept", "application/json")]
        if let contentType { headers.append(("Content-Type", contentType)) }
        return OutgoingHTTPRequest(
            method, base: node, path: path, query: query, headers: headers, body: body, timeout: config.connectionTimeout)
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
        ClientSearchable(
            TypesenseClient(name: config.name, config: try TypesenseConfig(config, environment: environment)), name: config.name)
    }

    /// What to warn of when an attempt's `connectionTimeoutSeconds` is no shorter than the
    /// searches' deadline (`timeoutMs`) on a cluster of several nodes: a node that hangs then
    /// holds an attempt for half the deadline (each attempt's share while another node can be
    /// tried), where a shorter attempt timeout would move on sooner. Nil: nothing to warn of.
    public static func failoverWarning(_ client: ClientSearchable<TypesenseClient>, timeout: Duration, path: String) -> String? {
        let config = client.client.config
        guard config.nodes.count > 1, config.connectionTimeout >= timeout else { return nil }
        let ms = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        return """
            \(path).connectionTimeoutSeconds (\(config.connectionTimeout)) is not shorter than the searches' deadline \
            (\(path).timeoutMs or defaultTimeoutMs: \(ms) ms): a node that hangs holds each search for half its deadline \
            before the next node is tried; set it well under the deadline (a node answers in milliseconds)
            """
    }
}

extension TypesenseClient: ReportsBackendStats {
    /// The cluster's nodes: each one's URL, health, requests and failures, for searches
    /// (`nodes`) and for forwarded writes (`writeNodes`).
    public var backendStats: JSONObject {
        let (batches, groups) = writeOrder.coalescing
        return [
            "nodes": nodes.json(), "writeNodes": writeNodes.json(),
            "writes": ["batches": .number(Double(batches)), "groups": .number(Double(groups))],
        ]
    }
}
