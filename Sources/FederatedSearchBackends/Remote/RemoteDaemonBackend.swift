import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization

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
    private let connection = Mutex<RemoteConnection?>(nil)
    private let nextID = Atomic<Int>(0)

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
    }

    deinit { connection.withLock { $0?.shutDown() } }

    public var description: SearchableDescription {
        SearchableDescription(kind: "fedsearchd", documentCount: nil, searchableAttributes: [], attributesForFaceting: [])
    }

    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        let c = try currentConnection()
        let id = "\(name)-\(nextID.wrappingAdd(1, ordering: .relaxed).newValue)"
        let request = makeRequest(id: id, query: query)
        do {
            var results = try await withTaskCancellationHandler {
                try await c.search(id: id, request: request)
            } onCancel: {
                // Tell the remote to stop, and stop waiting for it.
                try? c.send(["id": .string("\(id)-cancel"), "op": "cancel", "target": .string(id)])
                c.abandon(id: id, with: CancellationError())
            }
            results.index = name
            return results
        } catch let e as SearchError {
            switch e.code {
            case .timeout, .backendError, .backendHTTPError, .backendBadResponse: throw SearchError(e.code, "\(name): \(e.message)")
            default: throw SearchError(.backendError, "\(name): fedsearchd at \(socketPath) answered \(e.code): \(e.message)")
            }
        }
    }

    /// The search request sent to the remote daemon.
    func makeRequest(id: String, query: SearchQuery) -> JSONValue {
        var o: JSONObject = [
            "id": .string(id), "query": .string(query.text), "indices": [.string(remoteIndex)],
            "params": .object(query.parameters.requestJSON()),
        ]
        if let deadline = query.deadline {
            let c = (deadline - ContinuousClock.now).components
            let ms = Int(c.seconds) * 1000 + Int(c.attoseconds / 1_000_000_000_000_000)
            o["timeoutMs"] = .number(Double(min(600_000, max(1, ms))))
        }
        return .object(o)
    }

    /// The open connection, or a new one if there is none or it has failed.
    private func currentConnection() throws(SearchError) -> RemoteConnection {
        try connection.withLock { (c: inout RemoteConnection?) throws(SearchError) -> RemoteConnection in
            if let open = c, !open.isFailed { return open }
            let fresh = try RemoteConnection(path: socketPath)
            c = fresh
            return fresh
        }
    }
}
