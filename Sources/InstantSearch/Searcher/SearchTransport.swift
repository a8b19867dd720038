import FederatedSearchClient
import FederatedSearchProtocol

/// What a searcher sends its requests through: ``DaemonConnection`` (the daemon's socket), or a
/// stand-in in tests.
public protocol SearchTransport: Sendable {
    /// Sends a request; its frames arrive on the returned answer.
    func send(_ operation: Request.Operation) throws(ClientError) -> Response
    /// The link's state now, then every change.
    func states() -> AsyncStream<ConnectionState>
}

extension DaemonConnection: SearchTransport {}
