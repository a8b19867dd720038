import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchClient

/// The `fedsearchd` backend: one index of another fedsearchd, over its Unix socket with the
/// same protocol, so daemons federate daemons.
///
/// Config: `{"backend": "fedsearchd", "socket": "/run/other/fedsearchd.sock", "index": "movies"}`
/// (`index` defaults to the searchable's own name; `socket` is relative to the config file).
///
/// Each search sends `{"id", "query", "indices": [index], "params", "timeoutMs"}` on a shared,
/// pipelined connection (opened on first use, reopened after a failure) and maps the remote's
/// `results` frame. The remote's time limit is the time left before the local deadline. When
/// the local search is cancelled (deadline, `cancel`, client gone), a `cancel` for the remote
/// request is sent at once. The remote's hits keep their `_rankingScore`; its per-index error
/// comes back with its code (`timeout` stays `timeout`), anything else is `backend_error`.
public final class RemoteDaemonBackend: Searchable {
    public let name: String
    /// The remote daemon's socket path.
    public let socketPath: String
    /// The index asked on the remote daemon.
    public let remoteIndex: String
    /// The client library's connection: pipelined, reopened with back-off after a failure.
    private let connection: DaemonConnection

    /// Builds the backend from its config options (no connection is made until the first search).
    public convenience init(_ config: BackendConfig) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        let socket = try r.requiredString("socket")
        let index = try r.string("index") ?? config.name
        try r.rejectUnknownKeys()
        guard !socket.isEmpty else { throw SearchError(.invalidField, "\(r.path(of: "socket")): must not be empty") }
        self.init(name: config.name, socketPath: config.resolvePath(socket), remoteIndex: index)
    }

    public init(name: String, socketPath: String, remoteIndex: String) {
        self.name = name
        self.socketPath = socketPath
        self.remoteIndex = remoteIndex
        self.connection = DaemonConnection(path: socketPath, backoff: Backoff(initial: .milliseconds(20), maximum: .seconds(1)))
    }

    deinit { connection.close() }

    public var description: SearchableDescription {
        SearchableDescription(kind: "fedsearchd", documentCount: nil, searchableAttributes: [], attributesForFaceting: [])
    }

    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        var results: SearchResults?
        var sourceError: SearchError?
        do {
            // Ending the iteration by cancellation (deadline, `cancel`, client gone) sends the
            // remote a `cancel` for the request.
            for try await frame in try connection.send(.search(makeRequest(query))) {
                switch frame {
                case .results(_, _, let r): results = r
                case .error(_, let index, let e):
                    if index == nil { throw mapped(e) }
                    sourceError = e
                case .done(_, let status, _, _) where status == .cancelled: throw CancellationError()
                default: break
                }
            }
        } catch let e as ClientError {
            throw SearchError(.backendError, "\(name): \(e.description)")
        }
        try Task.checkCancellation()
        guard var results else {
            throw mapped(sourceError ?? SearchError(.backendBadResponse, "no results frame before done"))
        }
        results.index = name
        return results
    }

    /// The remote's error as this source's: its own code for a backend's failure or timeout,
    /// `backend_error` for anything else (the remote refused the request).
    private func mapped(_ e: SearchError) -> SearchError {
        switch e.code {
        case .timeout, .backendError, .backendHTTPError, .backendBadResponse: return SearchError(e.code, "\(name): \(e.message)")
        default: return SearchError(.backendError, "\(name): fedsearchd at \(socketPath) answered \(e.code): \(e.message)")
        }
    }

    /// The search request sent to the remote daemon.
    func makeRequest(_ query: SearchQuery) -> SearchRequest {
        var timeoutMs: Int?
        if let deadline = query.deadline {
            let c = (deadline - ContinuousClock.now).components
            let ms = Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000)
            timeoutMs = min(600_000, max(1, ms))
        }
        return SearchRequest(
            query: query.text, targets: [SearchTarget(index: remoteIndex)], parameters: query.parameters, timeoutMs: timeoutMs)
    }
}
