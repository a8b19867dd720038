extension CurrentFiltersInteractor {
    /// Lists the filters of `filterState` (of `groups` only, if given) and removes from it
    /// those the user removes.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, groups: Set<FilterGroupID>? = nil) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak filterState] connection in
            guard let self, let filterState else { return }
            @Sendable func items(_ filters: Filters) -> [FilterAndID] {
                filters.all.filter { groups?.contains($0.group) ?? true }.map { FilterAndID(filter: $0.filter, groupID: $0.group) }
            }
            self.item = items(filterState.filters)
            filterState.onChange.subscribe(with: connection) { [weak self] _, filters in self?.item = items(filters) }
            self.onRemoveItem.subscribe(with: connection) { [weak filterState] _, item in
                filterState?.remove(item.filter, fromGroupWithID: item.groupID)
            }
        }, disconnect: { [weak self, weak filterState] connection in
            filterState?.onChange.cancelSubscription(for: connection)
            self?.onRemoveItem.cancelSubscription(for: connection)
        }))
    }

    /// Shows the filters in `controller` and takes its removals.
    @discardableResult
    public func connectController(_ controller: some CurrentFiltersController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setItems(self.item)
            controller.onRemoveItem = { [weak self] in self?.remove($0) }
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, items in controller?.setItems(items) }
        }, disconnect: { [weak self, weak controller] connection in
            controller?.onRemoveItem = nil
            self?.onItemChanged.cancelSubscription(for: connection)
        }))
    }
}
