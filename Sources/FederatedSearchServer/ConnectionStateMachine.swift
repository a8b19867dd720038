import FederatedSearchCore
import FederatedSearchProtocol

/// The protocol logic of one connection, as a pure state machine: it takes framed lines and
/// completions and returns the actions the loop must perform. No socket, no tasks.
package struct ConnectionStateMachine {
    /// An action for the loop.
    package enum Action {
        /// Send this frame to the client.
        case send(Frame)
        /// Start a search task under `key`.
        case startSearch(key: UInt64, id: String?, request: SearchRequest)
        /// Cancel the task running under `key`.
        case cancel(key: UInt64)
        /// A newer request of its session replaced the one under `key`: cancel it, send its
        /// `superseded` done frame now, and drop anything it still sends.
        case supersede(key: UInt64)
        /// The request arrived with a `seq` older than its session's newest: answer it at once
        /// with a `superseded` done frame, without running it.
        case refuseStale(id: String?, request: SearchRequest)
        /// Answer a bad request that named an index: as for an unknown index if the peer may
        /// not know of it, else with its own error.
        case refuseIndexRequest(RequestError)
        /// Answer `indices` / `stats` (the loop has the data).
        case describeIndices(id: String?)
        /// Reload the config (the loop checks the peer's rights).
        case reload(id: String?)
        /// Search one index's facet values in a task under `key` (it lives like a search).
        case searchFacetValues(key: UInt64, id: String?, request: FacetValuesRequest)
        /// Write to, read from, create or delete a durable index.
        case indexOperation(id: String?, index: String, operation: IndexOperation)
        case reportStats(id: String?)
        /// Start a subscription (the loop answers it and keeps it; see `LiveSubscriptions`).
        case subscribe(id: String?, request: SearchRequest, minIntervalMs: Int)
        /// End this connection's subscription `target`.
        case unsubscribe(id: String?, target: String)
        /// Start watching indices for changes (`watch`).
        case watch(id: String?, indices: [String])
        /// Send what is queued, then close.
        case closeAfterFlush
    }

    package init() {}

    private var nextKey: UInt64 = 1
    /// Running requests by client id (requests without an id are not addressable by `cancel`).
    private var running: [String: UInt64] = [:]
    private var runningKeys: Set<UInt64> = []
    /// Per session: the newest `seq` seen and the key of the request that carried it.
    /// Sessions are per connection, so one client can never cancel another's work.
    private var sessions: [String: (seq: Int, key: UInt64)] = [:]
    package private(set) var closing = false

    /// Keys of every running request (to cancel them when the connection closes).
    package var runningRequestKeys: Set<UInt64> { runningKeys }

    /// What the connection tells the machine.
    package enum Event {
        /// The framer's next event: a line, or one over the limit.
        case framed(LineFramer.Event)
        /// A line decoded off the loop (the daemon decodes long lines there).
        case decoded(Result<Request, RequestError>)
        /// A request ended (its last frame was queued) or could not start (an unknown
        /// index, a refusal): its key and id are free again.
        case ended(key: UInt64, id: String?)
    }

    /// The one transition: what to do about `event`.
    package mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .framed(let framed): return handle(framed: framed)
        case .decoded(let decoded): return handle(decoded: decoded)
        case .ended(let key, let id):
            runningKeys.remove(key)
            if let id, running[id] == key { running[id] = nil }
            return []
        }
    }

    private mutating func handle(framed event: LineFramer.Event) -> [Action] {
        guard !closing else { return [] }
        switch event {
        case .lineTooLong(let length):
            closing = true
            return [
                .send(
                    .error(
                        id: nil, index: nil,
                        error: SearchError(
                            .lineTooLong, "request line of at least \(length) bytes is over the limit; closing the connection"))),
                .closeAfterFlush,
            ]
        case .line(let bytes):
            return handle(decoded: RequestDecoder.decode(bytes))
        }
    }

    private mutating func handle(decoded: Result<Request, RequestError>) -> [Action] {
        guard !closing else { return [] }
        switch decoded {
        case .failure(let e) where e.index != nil:
            return [.refuseIndexRequest(e)]
        case .failure(let e):
            return [.send(.error(id: e.id, index: nil, error: e.error))]
        case .success(let request):
            return handle(request)
        }
    }

    private mutating func handle(_ request: Request) -> [Action] {
        switch request.operation {
        case .ping:
            return [.send(.pong(id: request.id, protocolVersion: ProtocolVersion.current, version: FederatedSearchVersion.string))]
        case .indices:
            return [.describeIndices(id: request.id)]
        case .stats:
            return [.reportStats(id: request.id)]
        case .reload:
            return [.reload(id: request.id)]
        case .searchForFacetValues(let r):
            if let refused = duplicate(request.id) { return [refused] }
            let key = take(id: request.id)
            return [.searchFacetValues(key: key, id: request.id, request: r)]
        case .index(let index, let operation):
            return [.indexOperation(id: request.id, index: index, operation: operation)]
        case .subscribe(let search, let interval):
            return [.subscribe(id: request.id, request: search, minIntervalMs: interval)]
        case .unsubscribe(let target):
            return [.unsubscribe(id: request.id, target: target)]
        case .watch(let indices):
            return [.watch(id: request.id, indices: indices)]
        case .cancel(let target):
            guard let key = running[target] else {
                return [
                    .send(
                        .error(
                            id: request.id, index: nil,
                            error: SearchError(
                                .unknownRequest, "target: no running request with id \(RequestID.display(target)) on this connection")))
                ]
            }
            // The reply first: the target then ends (at once, if it was still waiting for a slot).
            return [.send(.cancelAccepted(id: request.id, target: target)), .cancel(key: key)]
        case .search(let search):
            if let refused = duplicate(request.id) { return [refused] }
            var actions: [Action] = []
            let key = nextKey
            if let session = search.session, let seq = search.seq {
                if let newest = sessions[session] {
                    if seq <= newest.seq { return [.refuseStale(id: request.id, request: search)] }
                    if runningKeys.contains(newest.key) {
                        actions.append(.supersede(key: newest.key))
                        forget(key: newest.key)
                    }
                }
                sessions[session] = (seq, key)
            }
            _ = take(id: request.id)
            return actions + [.startSearch(key: key, id: request.id, request: search)]
        }
    }

    /// The refusal of a request whose id is still running here, if it is.
    private func duplicate(_ id: String?) -> Action? {
        guard let id, running[id] != nil else { return nil }
        return .send(
            .error(
                id: id, index: nil,
                error: SearchError(
                    .duplicateID, "id: request \(RequestID.display(id)) is still running on this connection")))
    }

    /// The next key, now running under `id`.
    private mutating func take(id: String?) -> UInt64 {
        let key = nextKey
        nextKey += 1
        if let id { running[id] = key }
        runningKeys.insert(key)
        return key
    }

    /// The client id of the request running under `key`, if it has one.
    package func id(of key: UInt64) -> String? { running.first { $0.value == key }?.key }

    /// Frees a superseded request's key and id (its client already has its `done`).
    private mutating func forget(key: UInt64) {
        runningKeys.remove(key)
        for (id, k) in running where k == key { running[id] = nil }
    }

}
