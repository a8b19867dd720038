extension NumberRangeInteractor {
    /// Keeps the selected range and a range filter on `attribute` in `filterState` the same.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, attribute: String, groupName: String? = nil) -> any Connection {
        let group = FilterGroupID.and(groupName ?? "\(attribute)-range")
        return keep(
            ClosureConnection(
                connect: { [weak self, weak filterState] connection in
                    guard let self, let filterState else { return }
                    @Sendable func range(_ filters: [Filter]) -> ClosedRange<Double>? {
                        for f in filters {
                            if case .range(attribute, let lo, let hi, false) = f { return lo...hi }
                        }
                        return nil
                    }
                    self.item = range(filterState.filters(inGroupWithID: group))
                    filterState.onChange.subscribe(with: connection) { [weak self] _, filters in
                        let r = range(filters.filters(in: group))
                        if self?.item != r { self?.item = r }
                    }
                    self.onNumberRangeComputed.subscribe(with: connection) { [weak filterState] _, r in
                        filterState?.set(
                            r.map { [.range(attribute: attribute, lower: $0.lowerBound, upper: $0.upperBound)] } ?? [],
                            inGroupWithID: group)
                    }
                },
                disconnect: { [weak self, weak filterState] connection in
                    filterState?.onChange.cancelSubscription(for: connection)
                    self?.onNumberRangeComputed.cancelSubscription(for: connection)
                }))
    }
}
