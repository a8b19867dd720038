extension HierarchicalMenuInteractor {
    /// Keeps the selected path in `filterState`'s hierarchical group `groupName` (default: the
    /// first level's attribute): a filter per level, the deepest the one applied.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, groupName: String? = nil) -> any Connection {
        let group = FilterGroupID.hierarchical(groupName ?? attributes.first ?? "")
        return keep(
            ClosureConnection(
                connect: { [weak self, weak filterState] connection in
                    guard let self, let filterState else { return }
                    @MainActor func read(_ interactor: HierarchicalMenuInteractor) {
                        let values = filterState.filters(inGroupWithID: group).compactMap { f -> String? in
                            if case .facet(_, let v, false) = f { return v } else { return nil }
                        }
                        interactor.setSelectedPath(values)
                    }
                    read(self)
                    filterState.onChange.subscribe(with: connection) { [weak self] _, _ in if let self { read(self) } }
                    self.onSelectionsComputed.subscribe(with: connection) { [weak self, weak filterState] _, path in
                        guard let self, let filterState else { return }
                        filterState.set(zip(self.attributes, path).map { Filter.facet(attribute: $0, value: $1) }, inGroupWithID: group)
                    }
                },
                disconnect: { [weak self, weak filterState] connection in
                    filterState?.onChange.cancelSubscription(for: connection)
                    self?.onSelectionsComputed.cancelSubscription(for: connection)
                }))
    }
}
