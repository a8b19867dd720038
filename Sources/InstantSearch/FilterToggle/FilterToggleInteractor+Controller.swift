extension FilterToggleInteractor {
    /// Shows the toggle in `controller` and takes its clicks.
    @discardableResult
    public func connectController(_ controller: some FilterToggleController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItem(self.filter, isSelected: self.item)
                    controller.onClick = { [weak self] in self?.toggle() }
                    self.onItemChanged.subscribe(with: connection) { [weak self, weak controller] _, on in
                        guard let self else { return }
                        controller?.setItem(self.filter, isSelected: on)
                    }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onClick = nil
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
