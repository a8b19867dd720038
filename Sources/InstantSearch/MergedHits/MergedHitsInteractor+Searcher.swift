extension MergedHitsInteractor {
    /// Takes `searcher`'s merged list at each search.
    @discardableResult
    public func connectSearcher(_ searcher: FederatedSearcher) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] connection in
                    guard self != nil, let searcher else { return }
                    searcher.onMergedResults.subscribePast(with: connection) { [weak self, weak searcher] _, merged in
                        self?.update(merged, query: searcher?.query)
                    }
                    searcher.onMergedPage.subscribe(with: connection) { [weak self] _, page in self?.append(page) }
                    self?.onPageRequested.subscribe(with: connection) { [weak searcher] _, offset in
                        searcher?.loadMergedPage(offset: offset, limit: searcher?.parameters.hitsPerPage ?? 20)
                    }
                },
                disconnect: { [weak self, weak searcher] connection in
                    searcher?.onMergedResults.cancelSubscription(for: connection)
                    searcher?.onMergedPage.cancelSubscription(for: connection)
                    self?.onPageRequested.cancelSubscription(for: connection)
                }))
    }
}
