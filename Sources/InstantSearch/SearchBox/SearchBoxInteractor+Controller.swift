extension SearchBoxInteractor {
    /// Shows the interactor's query in `controller` and feeds what the user types back.
    @discardableResult
    public func connectController(_ controller: some SearchBoxController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setQuery(self.query)
                    controller.onQueryChanged = { [weak self] in self?.query = $0 }
                    controller.onQuerySubmitted = { [weak self] q in
                        self?.query = q
                        self?.submitQuery()
                    }
                    self.onQueryChanged.subscribe(with: connection) { [weak controller] _, q in controller?.setQuery(q) }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onQueryChanged = nil
                    controller?.onQuerySubmitted = nil
                    self?.onQueryChanged.cancelSubscription(for: connection)
                }))
    }
}
