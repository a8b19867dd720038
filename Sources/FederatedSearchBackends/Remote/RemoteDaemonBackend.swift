import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchClient
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
///
/// While live subscriptions search it, it watches the remote index (the remote's `watch` op,
/// on the same connection): each `changed` the remote sends runs them again, so a write to the
/// remote reaches subscribers here as it lands there (`"watch": false` leaves it to
/// `pollIntervalMs`).
public final class RemoteDaemonBackend: Searchable {
    public let name: String
    /// The remote daemon's socket path.
    public let socketPath: String
    /// The index asked on the remote daemon.
    public let remoteIndex: String
    /// Whether live subscriptions learn of the remote index's changes by watching it.
    public let watchesRemote: Bool
    /// The client library's connection: pipelined, reopened with back-off after a failure.
    private let connection: DaemonConnection

    /// Builds the backend from its config options (no connection is made until the first search).
    public convenience init(_ config: BackendConfig) throws(SearchError) {
        var r = FieldReader(config.options, path: config.path)
        let socket = try r.requiredString("socket")
        let index = try r.string("index") ?? config.name
        let watch = try r.bool("watch") ?? true
        try r.rejectUnknownKeys()
        guard !socket.isEmpty else { throw SearchError(.invalidField, "\(r.path(of: "socket")): must not be empty") }
        self.init(name: config.name, socketPath: config.resolvePath(socket), remoteIndex: index, watch: watch)
    }

    public init(name: String, socketPath: String, remoteIndex: String, watch: Bool = true) {
        self.name = name
        self.socketPath = socketPath
        self.remoteIndex = remoteIndex
        self.watchesRemote = watch
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

extension RemoteDaemonBackend: ChangeAnnouncingSearchable {
    public var changeFeed: JSONObject? { watchesRemote ? ["via": "upstream", "index": .string(remoteIndex)] : nil }

    /// Watches the remote index until stopped: `changed` after each `changed` frame, and after
    /// each `watching` (a (re)connection: what changed meanwhile was not told). A broken or
    /// refused watch is sent again after a pause that doubles up to 30 s.
    public func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)? {
        guard watchesRemote else { return nil }
        let (connection, index) = (self.connection, remoteIndex)
        let status = WatchStatus()
        let task = Task {
            var pause: Duration = .milliseconds(100)
            while !Task.isCancelled {
                do {
                    for try await frame in try connection.send(.watch(indices: [index])) {
                        switch frame {
                        case .info(_, "watching", _):
                            pause = .milliseconds(100)
                            status.problem.withLock { $0 = nil }
                            changed()
                        case .info(_, "changed", _):
                            changed()
                        case .error(_, _, let e):
                            status.problem.withLock { $0 = "the remote refused the watch: \(e.code.rawValue): \(e.message)" }
                        default:
                            break
                        }
                    }
                    status.problem.withLock { if $0 == nil { $0 = "the remote ended the watch" } }
                } catch {
                    status.problem.withLock { $0 = "\(error)" }
                }
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(30))
            }
        }
        return RemoteWatch(task: task, status: status)
    }
}

/// A watch of a remote index: stopping it ends the watch task (which unsubscribes).
private struct RemoteWatch: ChangeWatch {
    let task: Task<Void, Never>
    let status: WatchStatus
    func stop() { task.cancel() }
    var problem: String? { status.problem.withLock { $0 } }
}

/// Why a remote watch is not watching now (nil while it is).
private final class WatchStatus: Sendable {
    let problem = Mutex<String?>(nil)
}
