extension LoadingInteractor {
    /// Shows the state in `controller`.
    @discardableResult
    public func connectController(_ controller: some LoadingController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setItem(self.item)
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, l in controller?.setItem(l) }
                }, disconnect: { [weak self] connection in self?.onItemChanged.cancelSubscription(for: connection) }))
    }
}
