extension StatsInteractor {
    /// Shows the stats in `controller`.
    @discardableResult
    public func connectController(_ controller: some StatsController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItem(self.item)
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, s in controller?.setItem(s) }
                }, disconnect: { [weak self] connection in self?.onItemChanged.cancelSubscription(for: connection) }))
    }
}
