/// Filter states applied to a federated search's sources.
extension FederatedSearcher {
    /// Applies the filters of `filterState` to `sources` (names; nil: every source), and
    /// searches again from the first page whenever they change. An attribute the state names
    /// differently from an index is renamed by ``facetAliases`` (`brand` in the state is
    /// `supplier` in products with `facetAliases["brand"] = ["products": "supplier"]`).
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, sources names: [String]? = nil) -> any Connection {
        let targets = names.map { n in sources.filter { n.contains($0.name) } } ?? sources
        let connection = ClosureConnection(
            connect: { [weak self, weak filterState] connection in
                guard let self, let filterState else { return }
                for source in targets {
                    var aliases: [String: String] = [:]
                    for (name, perIndex) in self.facetAliases {
                        if let a = perIndex[source.name] ?? perIndex[source.id.index] { aliases[name] = a }
                    }
                    source.filterStates.append((WeakBox(filterState), aliases))
                }
                filterState.onChange.subscribe(with: connection) { [weak self] _, _ in
                    guard let self else { return }
                    for source in targets { source.parameters.page = 0 }
                    self.search()
                }
            },
            disconnect: { [weak filterState] connection in
                guard let filterState else { return }
                for source in targets { source.filterStates.removeAll { $0.state.object === filterState } }
                filterState.onChange.cancelSubscription(for: connection)
            })
        connections.append(connection)
        return connection
    }
}
