extension StatsInteractor {
    /// Takes the stats of each of `source`'s answers.
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak source] connection in
                    guard self != nil, let source else { return }
                    source.onResults.subscribePast(with: connection) { [weak self] _, results in self?.item = SearchStats(results) }
                }, disconnect: { [weak source] connection in source?.onResults.cancelSubscription(for: connection) }))
    }
}
