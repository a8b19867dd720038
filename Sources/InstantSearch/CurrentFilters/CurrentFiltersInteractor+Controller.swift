extension CurrentFiltersInteractor {
    /// Shows the filters in `controller` and takes its removals.
    @discardableResult
    public func connectController(_ controller: some CurrentFiltersController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItems(self.item)
                    controller.onRemoveItem = { [weak self] in self?.remove($0) }
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, items in controller?.setItems(items) }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onRemoveItem = nil
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
