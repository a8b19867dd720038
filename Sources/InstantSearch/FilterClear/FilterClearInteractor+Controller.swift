extension FilterClearInteractor {
    /// Triggers a clear when `controller` is clicked.
    @discardableResult
    public func connectController(_ controller: some FilterClearController) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak controller] _ in
                controller?.onClick = { [weak self] in self?.trigger() }
                _ = self
            }, disconnect: { [weak controller] _ in controller?.onClick = nil })
        connections.append(c)
        return c
    }
}
