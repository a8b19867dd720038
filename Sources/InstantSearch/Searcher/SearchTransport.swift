import FederatedSearchClient
import FederatedSearchProtocol

/// What a searcher sends its requests through: ``DaemonConnection`` (the daemon's socket), or a
/// stand-in in tests.
public protocol SearchTransport: Sendable {
    /// Sends a request; its frames arrive on the returned answer.
    func send(_ operation: Request.Operation) throws(ClientError) -> Response
    /// Sends a request and hands its frames to `handler` on the main actor, each batch that
    /// arrived together in one call, then how it ended; the handle cancels it. Searchers send
    /// this way. A transport that does not implement it has its ``Response`` read by a
    /// main-actor task.
    func send(
        _ operation: Request.Operation, onMainActor handler: @escaping @MainActor @Sendable (ResponseEvent) -> Void
    ) throws(ClientError) -> RequestHandle
    /// The link's state now, then every change.
    func states() -> AsyncStream<ConnectionState>
}

extension SearchTransport {
    public func send(
        _ operation: Request.Operation, onMainActor handler: @escaping @MainActor @Sendable (ResponseEvent) -> Void
    ) throws(ClientError) -> RequestHandle {
        let response = try send(operation)
        let task = Task { @MainActor in
            do {
                for try await frame in response {
                    guard !Task.isCancelled else { return }
                    handler(.frames([frame]))
                }
                if !Task.isCancelled { handler(.ended) }
            } catch {
                guard !Task.isCancelled else { return }
                handler(.failed(error as? ClientError ?? .disconnected("\(error)")))
            }
        }
        return RequestHandle(id: response.id) { task.cancel() }
    }
}

extension DaemonConnection: SearchTransport {}
