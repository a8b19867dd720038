extension FilterClearInteractor {
    /// Empties `filterState`'s groups (all of them by default) when triggered.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState, clearMode: ClearMode = .except([])) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak filterState] connection in
                guard let self else { return }
                self.onTriggered.subscribe(with: connection) { [weak filterState] _, _ in
                    guard let filterState else { return }
                    switch clearMode {
                    case .specified(let groups): filterState.batch { groups.forEach { filterState.removeAll(fromGroupWithID: $0) } }
                    case .except(let groups): filterState.removeAll(except: Set(groups))
                    }
                }
                _ = filterState
            },
            disconnect: { [weak self] connection in
                self?.onTriggered.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
