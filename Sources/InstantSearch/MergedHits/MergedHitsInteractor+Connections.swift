extension MergedHitsInteractor {
    /// Takes `searcher`'s merged list at each search.
    @discardableResult
    public func connectSearcher(_ searcher: FederatedSearcher) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak searcher] connection in
            guard self != nil, let searcher else { return }
            searcher.onMergedResults.subscribePast(with: connection) { [weak self] _, merged in self?.item = merged }
        }, disconnect: { [weak searcher] connection in
            searcher?.onMergedResults.cancelSubscription(for: connection)
        }))
    }

    /// Shows the merged hits in `controller`.
    @discardableResult
    public func connectController(_ controller: some MergedHitsController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setHits(self.hits, nbHits: self.nbHits)
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, merged in
                controller?.setHits(merged?.hits ?? [], nbHits: merged?.nbHits ?? 0)
            }
        }, disconnect: { [weak self] connection in
            self?.onItemChanged.cancelSubscription(for: connection)
        }))
    }
}
