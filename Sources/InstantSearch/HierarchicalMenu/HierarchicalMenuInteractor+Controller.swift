extension HierarchicalMenuInteractor {
    /// Shows the entries in `controller` and takes its clicks.
    @discardableResult
    public func connectController(_ controller: some HierarchicalMenuController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItems(self.item)
                    controller.onClick = { [weak self] value in self?.select(value) }
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, items in controller?.setItems(items) }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onClick = nil
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
