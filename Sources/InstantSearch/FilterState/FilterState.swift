import FederatedSearchCore

/// The refinements a search UI has made, in named groups; searchers connected to it send its
/// filters and disjunctive facets with every search, and search again when they change.
///
/// Every change fires ``onChange`` once; ``batch(_:)`` makes several changes fire it once.
@MainActor
public final class FilterState {
    public private(set) var filters = Filters()
    /// Fired with the filters after each change.
    public let onChange = Observer<Filters>()
    private var batching = 0
    private var changedInBatch = false

    public init() {}

    /// Adds `filter` to the group (made if absent); nothing if it is there already.
    public func add(_ filter: Filter, toGroupWithID group: FilterGroupID) {
        change {
            if let i = filters.groups.firstIndex(where: { $0.id == group }) {
                guard !filters.groups[i].filters.contains(filter) else { return false }
                filters.groups[i].filters.append(filter)
            } else {
                filters.groups.append(Filters.Group(id: group, filters: [filter]))
            }
            return true
        }
    }

    /// Removes `filter` from the group.
    public func remove(_ filter: Filter, fromGroupWithID group: FilterGroupID) {
        change {
            guard let i = filters.groups.firstIndex(where: { $0.id == group }),
                let j = filters.groups[i].filters.firstIndex(of: filter)
            else { return false }
            filters.groups[i].filters.remove(at: j)
            return true
        }
    }

    /// Adds `filter` to the group if it is not there, removes it if it is.
    public func toggle(_ filter: Filter, inGroupWithID group: FilterGroupID) {
        if contains(filter, inGroupWithID: group) {
            remove(filter, fromGroupWithID: group)
        } else {
            add(filter, toGroupWithID: group)
        }
    }

    /// Whether the group holds `filter`.
    public func contains(_ filter: Filter, inGroupWithID group: FilterGroupID) -> Bool {
        filters.filters(in: group).contains(filter)
    }

    /// The filters of one group.
    public func filters(inGroupWithID group: FilterGroupID) -> [Filter] { filters.filters(in: group) }

    /// Empties one group.
    public func removeAll(fromGroupWithID group: FilterGroupID) {
        change {
            guard let i = filters.groups.firstIndex(where: { $0.id == group }), !filters.groups[i].filters.isEmpty else {
                return false
            }
            filters.groups[i].filters = []
            return true
        }
    }

    /// Empties every group but those in `except`.
    public func removeAll(except: Set<FilterGroupID> = []) {
        change {
            var changed = false
            for i in filters.groups.indices where !except.contains(filters.groups[i].id) && !filters.groups[i].filters.isEmpty {
                filters.groups[i].filters = []
                changed = true
            }
            return changed
        }
    }

    /// Replaces one group's filters (a hierarchical menu's path, a range's bounds).
    public func set(_ newFilters: [Filter], inGroupWithID group: FilterGroupID) {
        change {
            if let i = filters.groups.firstIndex(where: { $0.id == group }) {
                guard filters.groups[i].filters != newFilters else { return false }
                filters.groups[i].filters = newFilters
            } else {
                guard !newFilters.isEmpty else { return false }
                filters.groups.append(Filters.Group(id: group, filters: newFilters))
            }
            return true
        }
    }

    /// Makes the changes of `body` and fires ``onChange`` once, if anything changed.
    public func batch(_ body: () -> Void) {
        batching += 1
        body()
        batching -= 1
        if batching == 0, changedInBatch {
            changedInBatch = false
            onChange.fire(filters)
        }
    }

    private func change(_ body: () -> Bool) {
        guard body() else { return }
        if batching > 0 { changedInBatch = true } else { onChange.fire(filters) }
    }
}
