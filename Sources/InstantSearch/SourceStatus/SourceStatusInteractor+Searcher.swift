import FederatedSearchClient
import FederatedSearchProtocol

extension SourceStatusInteractor {
    /// Follows `searcher`'s reports, loading state, errors and link.
    @discardableResult
    public func connectSearcher(_ searcher: FederatedSearcher) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] connection in
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
                },
                disconnect: { [weak searcher] connection in
                    searcher?.onStatus.cancelSubscription(for: connection)
                    searcher?.isLoading.cancelSubscription(for: connection)
                    searcher?.onError.cancelSubscription(for: connection)
                    searcher?.onConnectionState.cancelSubscription(for: connection)
                }))
    }
}
