extension StatsInteractor {
    /// Takes the stats of each of `source`'s answers.
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak source] connection in
            guard self != nil, let source else { return }
            source.onResults.subscribePast(with: connection) { [weak self] _, results in self?.item = SearchStats(results) }
        }, disconnect: { [weak source] connection in source?.onResults.cancelSubscription(for: connection) }))
    }

    /// Shows the stats in `controller`.
    @discardableResult
    public func connectController(_ controller: some StatsController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setItem(self.item)
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, s in controller?.setItem(s) }
        }, disconnect: { [weak self] connection in self?.onItemChanged.cancelSubscription(for: connection) }))
    }
}
