import FederatedSearchClient
import FederatedSearchProtocol

/// What each source of a federated search did: ok, timeout, error, skipped (its breaker is
/// open) or superseded, with its time, and whether the daemon can be reached at all. Only a
/// federated backend can offer it: it comes from the daemon's `done` frame.
@MainActor
public final class SourceStatusInteractor: ItemInteractor<SourceStatusInteractor.State> {
    /// The last search's report and the link's state.
    public struct State: Sendable, Equatable {
        /// The last `done` frame's report (nil before the first).
        public var last: FederatedSearcher.Status?
        /// The searches sent and not ended.
        public var isLoading = false
        public var connection: ConnectionState = .idle
        /// The last error of the whole request (the daemon unreachable, a refused request).
        public var error: SearcherError?

        public init() {}
    }

    public init() { super.init(item: State()) }
}

/// A view of the sources' status.
@MainActor
public protocol SourceStatusController: AnyObject {
    func setItem(_ state: SourceStatusInteractor.State)
}

extension SourceStatusInteractor {
    /// Follows `searcher`'s reports, loading state, errors and link.
    @discardableResult
    public func connectSearcher(_ searcher: FederatedSearcher) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak searcher] connection in
            guard self != nil, let searcher else { return }
            searcher.onStatus.subscribePast(with: connection) { [weak self] _, status in
                self?.item.last = status
                self?.item.error = nil
            }
            searcher.isLoading.subscribe(with: connection) { [weak self] _, l in self?.item.isLoading = l }
            searcher.onError.subscribe(with: connection) { [weak self] _, e in
                if e.source == nil { self?.item.error = e }
            }
            searcher.onConnectionState.subscribePast(with: connection) { [weak self] _, c in
                self?.item.connection = c
                if c == .connected, ["unavailable", "disconnected"].contains(self?.item.error?.code) { self?.item.error = nil }
            }
        }, disconnect: { [weak searcher] connection in
            searcher?.onStatus.cancelSubscription(for: connection)
            searcher?.isLoading.cancelSubscription(for: connection)
            searcher?.onError.cancelSubscription(for: connection)
            searcher?.onConnectionState.cancelSubscription(for: connection)
        }))
    }

    /// Shows the state in `controller`.
    @discardableResult
    public func connectController(_ controller: some SourceStatusController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setItem(self.item)
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, s in controller?.setItem(s) }
        }, disconnect: { [weak self] connection in self?.onItemChanged.cancelSubscription(for: connection) }))
    }
}
