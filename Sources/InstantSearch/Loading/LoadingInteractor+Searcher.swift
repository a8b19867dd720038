extension LoadingInteractor {
    /// Follows `searcher`'s ``Searcher/isLoading``.
    @discardableResult
    public func connectSearcher(_ searcher: some Searcher) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] connection in
                    guard self != nil, let searcher else { return }
                    searcher.isLoading.subscribePast(with: connection) { [weak self] _, loading in self?.item = loading }
                }, disconnect: { [weak searcher] connection in searcher?.isLoading.cancelSubscription(for: connection) }))
    }
}
