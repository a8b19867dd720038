extension MergedHitsInteractor {
    /// Shows the merged hits in `controller`.
    @discardableResult
    public func connectController(_ controller: some MergedHitsController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.hitsSource = self
                    controller.setHits(self.hits, nbHits: self.nbHits)
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, merged in
                        controller?.setHits(merged?.hits ?? [], nbHits: merged?.nbHits ?? 0)
                    }
                },
                disconnect: { [weak self] connection in
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
