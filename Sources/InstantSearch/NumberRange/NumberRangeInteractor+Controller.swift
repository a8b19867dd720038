extension NumberRangeInteractor {
    /// Shows bounds and range in `controller` and takes its changes.
    @discardableResult
    public func connectController(_ controller: some NumberRangeController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setBounds(self.bounds)
                    controller.setItem(self.item)
                    controller.onRangeChanged = { [weak self] in self?.select($0) }
                    self.onBoundsChanged.subscribe(with: connection) { [weak controller] _, b in controller?.setBounds(b) }
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, r in controller?.setItem(r) }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onRangeChanged = nil
                    self?.onBoundsChanged.cancelSubscription(for: connection)
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
