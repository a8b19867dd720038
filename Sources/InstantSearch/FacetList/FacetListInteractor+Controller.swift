extension FacetListInteractor {
    /// Shows the values and selections in `controller` and takes its clicks.
    @discardableResult
    public func connectController(_ controller: some FacetListController) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak controller] connection in
                guard let self, let controller else { return }
                @MainActor func show(_ interactor: FacetListInteractor) {
                    controller.setSelectableItems(interactor.items.map { ($0, interactor.selections.contains($0.value)) })
                    controller.reload()
                }
                show(self)
                controller.onClick = { [weak self] facet in self?.toggleSelection(facet.value) }
                self.onItemsChanged.subscribe(with: connection) { [weak self] _, _ in if let self { show(self) } }
            },
            disconnect: { [weak self, weak controller] connection in
                controller?.onClick = nil
                self?.onItemsChanged.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
