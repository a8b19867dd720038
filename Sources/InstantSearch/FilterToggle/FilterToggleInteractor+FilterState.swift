extension FilterToggleInteractor {
    /// Keeps the toggle and the filter's presence in `filterState`'s group the same.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, groupID: FilterGroupID? = nil) -> any Connection {
        let group = groupID ?? .and(filter.attribute)
        let filter = self.filter
        return keep(
            ClosureConnection(
                connect: { [weak self, weak filterState] connection in
                    guard let self, let filterState else { return }
                    self.item = filterState.contains(filter, inGroupWithID: group)
                    filterState.onChange.subscribe(with: connection) { [weak self] _, filters in
                        let on = filters.filters(in: group).contains(filter)
                        if self?.item != on { self?.item = on }
                    }
                    self.onSelectionComputed.subscribe(with: connection) { [weak filterState] _, on in
                        if on {
                            filterState?.add(filter, toGroupWithID: group)
                        } else {
                            filterState?.remove(filter, fromGroupWithID: group)
                        }
                    }
                },
                disconnect: { [weak self, weak filterState] connection in
                    filterState?.onChange.cancelSubscription(for: connection)
                    self?.onSelectionComputed.cancelSubscription(for: connection)
                }))
    }
}
