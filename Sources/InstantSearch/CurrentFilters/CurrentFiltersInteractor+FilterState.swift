extension CurrentFiltersInteractor {
    /// Lists the filters of `filterState` (of `groups` only, if given) and removes from it
    /// those the user removes.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, groups: Set<FilterGroupID>? = nil) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak filterState] connection in
                    guard let self, let filterState else { return }
                    @Sendable func items(_ filters: Filters) -> [FilterAndID] {
                        filters.all.filter { groups?.contains($0.group) ?? true }.map { FilterAndID(filter: $0.filter, groupID: $0.group) }
                    }
                    self.item = items(filterState.filters)
                    filterState.onChange.subscribe(with: connection) { [weak self] _, filters in self?.item = items(filters) }
                    self.onRemoveItem.subscribe(with: connection) { [weak filterState] _, item in
                        filterState?.remove(item.filter, fromGroupWithID: item.groupID)
                    }
                },
                disconnect: { [weak self, weak filterState] connection in
                    filterState?.onChange.cancelSubscription(for: connection)
                    self?.onRemoveItem.cancelSubscription(for: connection)
                }))
    }
}
