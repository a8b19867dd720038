import FederatedSearchCore

extension MergeStrategyInteractor {
    /// Shows the strategies in `controller` and takes its choices.
    @discardableResult
    public func connectController(_ controller: some MergeStrategyController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItems(self.items, selected: self.item)
                    controller.onSelect = { [weak self] in self?.select($0) }
                    self.onItemChanged.subscribe(with: connection) { [weak self, weak controller] _, selected in
                        guard let self else { return }
                        controller?.setItems(self.items, selected: selected)
                    }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onSelect = nil
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
