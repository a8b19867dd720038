extension HitsInteractor {
    /// Makes `controller` show this interactor's hits, reloading it at each results.
    @discardableResult
    public func connectController(_ controller: some HitsController) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak controller] connection in
                guard let self, let controller else { return }
                controller.hitsSource = self
                controller.reload()
                self.onResultsUpdated.subscribe(with: connection) { [weak controller] _, results in
                    if results.page == 0 { controller?.scrollToTop() }
                    controller?.reload()
                }
            },
            disconnect: { [weak self, weak controller] connection in
                controller?.hitsSource = nil
                self?.onResultsUpdated.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
