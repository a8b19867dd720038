import FederatedSearchCore

extension MergeStrategyInteractor {
    /// Sets `searcher`'s merge strategy to the selected one (keeping its other merge options)
    /// and searches again on each change.
    @discardableResult
    public func connectSearcher(_ searcher: FederatedSearcher) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] connection in
                    guard let self, let searcher else { return }
                    @MainActor func apply(_ strategy: String) {
                        var merge = searcher.merge ?? [:]
                        merge["strategy"] = .string(strategy)
                        searcher.merge = merge
                    }
                    apply(self.item)
                    self.onItemChanged.subscribe(with: connection) { [weak searcher] _, strategy in
                        apply(strategy)
                        searcher?.search()
                    }
                },
                disconnect: { [weak self] connection in
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
