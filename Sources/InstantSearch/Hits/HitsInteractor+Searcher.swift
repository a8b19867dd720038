extension HitsInteractor {
    /// Feeds this interactor with `source`'s results (a ``HitsSearcher``, or a source of a
    /// ``FederatedSearcher``), and loads further pages from it.
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak source] connection in
                guard let self, let source else { return }
                source.onResults.subscribePast(with: connection) { [weak self] _, results in self?.update(results) }
                self.onPageRequested.subscribe(with: connection) { [weak source] _, page in source?.search(page: page) }
            },
            disconnect: { [weak self, weak source] connection in
                source?.onResults.cancelSubscription(for: connection)
                self?.onPageRequested.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
