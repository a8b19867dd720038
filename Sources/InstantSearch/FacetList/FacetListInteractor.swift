import FederatedSearchCore

/// One value of a facet and how many hits have it.
public struct Facet: Sendable, Equatable, Hashable {
    public let value: String
    public let count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }
}

/// How a facet list orders its values.
public enum FacetSortCriterion: Sendable, Equatable {
    /// Selected values first.
    case isRefined
    /// Most hits first.
    case count
    /// By value.
    case alphabetical
}

/// A refinement list: a facet's values with their counts, and which are selected (one at a
/// time, or several). Selected values stay listed (with their last count, or 0) when a query
/// no longer returns them, so a user can always unselect what they selected.
@MainActor
public final class FacetListInteractor {
    /// Whether one value or several can be selected.
    public enum SelectionMode: Sendable { case single, multiple }

    public let selectionMode: SelectionMode
    /// The order of ``items``, criterion after criterion.
    public var sortBy: [FacetSortCriterion]
    /// The values as the daemon last counted them (before selected ones are added back).
    public private(set) var facets: [Facet] = []
    /// Whether the last counts were exhaustive.
    public private(set) var isExhaustive = true
    /// The selected values.
    public private(set) var selections: Set<String> = []
    /// Fired with the values to show after each change of counts or selections.
    public let onItemsChanged = Observer<[Facet]>()
    /// Fired with the selections after each change.
    public let onSelectionsChanged = Observer<Set<String>>()
    /// Fired with a value the user selected or unselected (the filter state connection acts on it).
    public let onSelectionsComputed = Observer<Set<String>>()
    public var connections: [any Connection] = []
    private var lastCounts: [String: Int] = [:]
    /// While a facet search is typed: the values it found, shown in place of the counted ones
    /// (``connectFacetSearcher(_:)``); nil otherwise.
    public private(set) var searchedFacets: [Facet]?

    public init(selectionMode: SelectionMode = .multiple, sortBy: [FacetSortCriterion] = [.isRefined, .count, .alphabetical]) {
        self.selectionMode = selectionMode
        self.sortBy = sortBy
    }

    /// The values to show: the counted ones and every selected one, in ``sortBy`` order; while
    /// a facet search is typed, the values it found, in its order.
    public var items: [Facet] {
        if let searchedFacets { return searchedFacets }
        var list = facets
        let present = Set(facets.map(\.value))
        for s in selections where !present.contains(s) { list.append(Facet(value: s, count: 0)) }
        return list.sorted { a, b in
            for c in sortBy {
                switch c {
                case .isRefined:
                    let (x, y) = (selections.contains(a.value), selections.contains(b.value))
                    if x != y { return x }
                case .count:
                    if a.count != b.count { return a.count > b.count }
                case .alphabetical:
                    if a.value != b.value { return a.value.localizedCompare(b.value) }
                }
            }
            return false
        }
    }

    /// Takes new counts.
    public func update(_ facets: [Facet], exhaustive: Bool = true) {
        self.facets = facets
        isExhaustive = exhaustive
        for f in facets { lastCounts[f.value] = f.count }
        onItemsChanged.fire(items)
    }

    /// Shows the values a facet search found (nil: the search ended; the counted values again).
    public func updateSearch(_ facets: [Facet]?) {
        searchedFacets = facets
        onItemsChanged.fire(items)
    }

    /// The user selected or unselected `value`: the new selections are computed (single
    /// mode: `value` alone, or none) and fired for the filter state to apply.
    public func toggleSelection(_ value: String) {
        var next = selections
        switch selectionMode {
        case .single: next = next.contains(value) ? [] : [value]
        case .multiple: if next.contains(value) { next.remove(value) } else { next.insert(value) }
        }
        onSelectionsComputed.fire(next)
        if onSelectionsComputed.subscriberCount == 0 { setSelections(next) }
    }

    /// Sets the selections (from the filter state, or directly without one).
    public func setSelections(_ values: Set<String>) {
        guard values != selections else { return }
        selections = values
        onSelectionsChanged.fire(values)
        onItemsChanged.fire(items)
    }
}

extension String {
    /// Case-insensitive order, then exact, for facet values.
    func localizedCompare(_ other: String) -> Bool {
        let (a, b) = (lowercased(), other.lowercased())
        return a != b ? a < b : self < other
    }
}
