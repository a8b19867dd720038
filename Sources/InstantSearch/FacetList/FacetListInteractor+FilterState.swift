/// How a facet list's selections combine in the filters.
public enum RefinementOperator: Sendable {
    /// A hit must have every selected value (conjunctive).
    case and
    /// A hit must have one of them (disjunctive: the values' counts ignore the list's own
    /// selections, computed by the daemon in the same pass).
    case or
}

extension FacetListInteractor {
    /// Keeps the selections and `filterState`'s group for `attribute` the same: a selection
    /// becomes facet filters in the group (`or(attribute)` or `and(attribute)` unless
    /// `groupName` says otherwise), and filters set elsewhere become selections.
    @discardableResult
    public func connectFilterState(
        _ filterState: FilterState, attribute: String, operator op: RefinementOperator = .or, groupName: String? = nil
    ) -> any Connection {
        let group: FilterGroupID = op == .or ? .or(groupName ?? attribute) : .and(groupName ?? attribute)
        let c = ClosureConnection(
            connect: { [weak self, weak filterState] connection in
                guard let self, let filterState else { return }
                @Sendable func values(_ filters: [Filter]) -> Set<String> {
                    Set(
                        filters.compactMap {
                            if case .facet(attribute, let v, false) = $0 { return v }
                            return nil
                        })
                }
                self.setSelections(values(filterState.filters(inGroupWithID: group)))
                filterState.onChange.subscribe(with: connection) { [weak self] _, filters in
                    self?.setSelections(values(filters.filters(in: group)))
                }
                self.onSelectionsComputed.subscribe(with: connection) { [weak filterState] _, selected in
                    guard let filterState else { return }
                    let kept = filterState.filters(inGroupWithID: group).filter {
                        if case .facet(attribute, _, false) = $0 { return false }
                        return true
                    }
                    let chosen = selected.sorted().map { Filter.facet(attribute: attribute, value: $0) }
                    filterState.set(kept + chosen, inGroupWithID: group)
                }
            },
            disconnect: { [weak self, weak filterState] connection in
                filterState?.onChange.cancelSubscription(for: connection)
                self?.onSelectionsComputed.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
