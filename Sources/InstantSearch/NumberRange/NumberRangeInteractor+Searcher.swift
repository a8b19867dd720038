extension NumberRangeInteractor {
    /// Takes the bounds of `attribute` from `source`'s `facets_stats` (the attribute is added
    /// to its `facets`).
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource, attribute: String) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak source] connection in
                    guard self != nil, let source else { return }
                    if !source.parameters.facets.contains(attribute) { source.parameters.facets.append(attribute) }
                    source.onResults.subscribePast(with: connection) { [weak self] _, results in
                        let stats = results.facetsStats.first { $0.attribute == attribute }
                        self?.applyBounds(stats.map { $0.min...$0.max })
                    }
                }, disconnect: { [weak source] connection in source?.onResults.cancelSubscription(for: connection) }))
    }
}
