extension PaginationInteractor {
    /// Shows the pages in `controller` and takes its clicks.
    @discardableResult
    public func connectController(_ controller: some PaginationController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] connection in
                    guard let self, let controller else { return }
                    controller.setPages(current: self.item.current, count: self.item.count)
                    controller.onClick = { [weak self] in self?.select(page: $0) }
                    self.onItemChanged.subscribe(with: connection) { [weak controller] _, p in
                        controller?.setPages(current: p.current, count: p.count)
                    }
                },
                disconnect: { [weak self, weak controller] connection in
                    controller?.onClick = nil
                    self?.onItemChanged.cancelSubscription(for: connection)
                }))
    }
}
