extension PaginationInteractor {
    /// Takes the page and page count of `source`'s answers and fetches the page asked for.
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak source] connection in
                    guard let self, let source else { return }
                    source.onResults.subscribePast(with: connection) { [weak self] _, r in
                        self?.item = Pages(current: r.page, count: r.nbPages)
                    }
                    self.onPageRequested.subscribe(with: connection) { [weak source] _, page in source?.search(page: page) }
                },
                disconnect: { [weak self, weak source] connection in
                    source?.onResults.cancelSubscription(for: connection)
                    self?.onPageRequested.cancelSubscription(for: connection)
                }))
    }
}
