extension HierarchicalMenuInteractor {
    /// Shows the counts of every level from `source`'s results (each level's attribute is
    /// added to the source's `facets`).
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak source] connection in
                    guard let self, let source else { return }
                    for a in self.attributes where !source.parameters.facets.contains(a) && !source.parameters.facets.contains("*") {
                        source.parameters.facets.append(a)
                    }
                    source.onResults.subscribePast(with: connection) { [weak self] _, results in
                        guard let self else { return }
                        self.update(
                            levels: self.attributes.map { a in
                                (results.facets.first { $0.attribute == a }?.values ?? []).map { Facet(value: $0.value, count: $0.count) }
                            })
                    }
                },
                disconnect: { [weak source] connection in
                    source?.onResults.cancelSubscription(for: connection)
                }))
    }
}
