/// When a search box starts a search.
public enum SearchTriggeringMode: Sendable {
    /// At every keystroke.
    case searchAsYouType
    /// When the query is submitted.
    case searchOnSubmit
}

extension SearchBoxInteractor {
    /// Sends the interactor's query to `searcher`, which searches as you type or on submit.
    @discardableResult
    public func connectSearcher(_ searcher: some Searcher, searchTriggeringMode: SearchTriggeringMode = .searchAsYouType)
        -> any Connection
    {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] connection in
                    guard let self, let searcher else { return }
                    let event = searchTriggeringMode == .searchAsYouType ? self.onQueryChanged : self.onQuerySubmitted
                    event.subscribe(with: connection) { [weak searcher] _, q in
                        guard let searcher else { return }
                        searcher.query = q
                        searcher.search()
                    }
                },
                disconnect: { [weak self] connection in
                    self?.onQueryChanged.cancelSubscription(for: connection)
                    self?.onQuerySubmitted.cancelSubscription(for: connection)
                }))
    }
}
