extension NumberRangeInteractor {
    /// Takes the bounds of `attribute` from `source`'s `facets_stats` (the attribute is added
    /// to its `facets`).
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource, attribute: String) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak source] connection in
            guard self != nil, let source else { return }
            if !source.parameters.facets.contains(attribute) { source.parameters.facets.append(attribute) }
            source.onResults.subscribePast(with: connection) { [weak self] _, results in
                let stats = results.facetsStats.first { $0.attribute == attribute }
                self?.applyBounds(stats.map { $0.min...$0.max })
            }
        }, disconnect: { [weak source] connection in source?.onResults.cancelSubscription(for: connection) }))
    }

    /// Keeps the selected range and a range filter on `attribute` in `filterState` the same.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, attribute: String, groupName: String? = nil) -> any Connection {
        let group = FilterGroupID.and(groupName ?? "\(attribute)-range")
        return keep(ClosureConnection(connect: { [weak self, weak filterState] connection in
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
                filterState?.set(r.map { [.range(attribute: attribute, lower: $0.lowerBound, upper: $0.upperBound)] } ?? [],
                                 inGroupWithID: group)
            }
        }, disconnect: { [weak self, weak filterState] connection in
            filterState?.onChange.cancelSubscription(for: connection)
            self?.onNumberRangeComputed.cancelSubscription(for: connection)
        }))
    }

    /// Shows bounds and range in `controller` and takes its changes.
    @discardableResult
    public func connectController(_ controller: some NumberRangeController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setBounds(self.bounds)
            controller.setItem(self.item)
            controller.onRangeChanged = { [weak self] in self?.select($0) }
            self.onBoundsChanged.subscribe(with: connection) { [weak controller] _, b in controller?.setBounds(b) }
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, r in controller?.setItem(r) }
        }, disconnect: { [weak self, weak controller] connection in
            controller?.onRangeChanged = nil
            self?.onBoundsChanged.cancelSubscription(for: connection)
            self?.onItemChanged.cancelSubscription(for: connection)
        }))
    }
}
