/// A filter as the current-filters list shows it: the filter and the group it is in.
public struct FilterAndID: Sendable, Equatable, Hashable {
    public let filter: Filter
    public let groupID: FilterGroupID

    public init(filter: Filter, groupID: FilterGroupID) {
        self.filter = filter
        self.groupID = groupID
    }

    /// `genres: Drama`, `year ≥ 2000`, `NOT supplier: HP`.
    public var text: String {
        let positive: String
        switch filter {
        case .facet(let a, let v, _): positive = "\(a): \(v)"
        case .numeric(let a, let op, let v, _): positive = "\(a) \(op.rawValue) \(DisplayFormat.number(v))"
        case .range(let a, let lo, let hi, _): positive = "\(a): \(DisplayFormat.number(lo))–\(DisplayFormat.number(hi))"
        case .tag(let t, _): positive = "#\(t)"
        }
        return filter.isNegated ? "NOT \(positive)" : positive
    }
}

/// The filters in force, each removable.
@MainActor
public final class CurrentFiltersInteractor: ItemInteractor<[FilterAndID]> {
    /// Fired with a filter the user removed (the filter state connection removes it).
    public let onRemoveItem = Observer<FilterAndID>()

    public init() { super.init(item: []) }

    /// Removes one filter.
    public func remove(_ item: FilterAndID) { onRemoveItem.fire(item) }
}
