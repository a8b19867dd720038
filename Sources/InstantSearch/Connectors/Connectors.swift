/// Connectors: a searcher, an interactor and its controller wired for the common case, in one
/// value that keeps them (InstantSearch's `...Connector` types).

/// A search box that searches as you type.
@MainActor
public final class SearchBoxConnector {
    public let searcher: any Searcher
    public let interactor: SearchBoxInteractor
    public let controller: any SearchBoxController

    public init(
        searcher: some Searcher, controller: some SearchBoxController,
        searchTriggeringMode: SearchTriggeringMode = .searchAsYouType
    ) {
        self.searcher = searcher
        self.controller = controller
        interactor = SearchBoxInteractor(query: searcher.query)
        interactor.connectSearcher(searcher, searchTriggeringMode: searchTriggeringMode)
        interactor.connectController(controller)
    }
}

/// A list of one index's hits.
@MainActor
public final class HitsConnector {
    public let source: any SearchResultsSource
    public let interactor: HitsInteractor
    public let controller: any HitsController

    public init(source: some SearchResultsSource, controller: some HitsController, infiniteScrolling: Bool = false) {
        self.source = source
        self.controller = controller
        interactor = HitsInteractor(infiniteScrolling: infiniteScrolling)
        interactor.connectSearcher(source)
        interactor.connectController(controller)
    }
}

/// A refinement list of one facet, its selections kept in a filter state.
@MainActor
public final class FacetListConnector {
    public let source: any SearchResultsSource
    public let filterState: FilterState
    public let attribute: String
    public let interactor: FacetListInteractor
    public let controller: any FacetListController

    public init(
        source: some SearchResultsSource, filterState: FilterState, attribute: String,
        operator op: RefinementOperator = .or, selectionMode: FacetListInteractor.SelectionMode = .multiple,
        controller: some FacetListController
    ) {
        self.source = source
        self.filterState = filterState
        self.attribute = attribute
        self.controller = controller
        interactor = FacetListInteractor(selectionMode: selectionMode)
        interactor.connectSearcher(source, attribute: attribute)
        interactor.connectFilterState(filterState, attribute: attribute, operator: op)
        interactor.connectController(controller)
    }
}

/// One index's stats line.
@MainActor
public final class StatsConnector {
    public let interactor = StatsInteractor()
    public let controller: any StatsController

    public init(source: some SearchResultsSource, controller: some StatsController) {
        self.controller = controller
        interactor.connectSearcher(source)
        interactor.connectController(controller)
    }
}

/// The status of a federated search's sources.
@MainActor
public final class SourceStatusConnector {
    public let interactor = SourceStatusInteractor()
    public let controller: any SourceStatusController

    public init(searcher: FederatedSearcher, controller: some SourceStatusController) {
        self.controller = controller
        interactor.connectSearcher(searcher)
        interactor.connectController(controller)
    }
}

/// The merged list of a federated search, scrolling on as it nears its end.
@MainActor
public final class MergedHitsConnector {
    public let interactor = MergedHitsInteractor()
    public let controller: any MergedHitsController

    public init(searcher: FederatedSearcher, controller: some MergedHitsController) {
        self.controller = controller
        interactor.connectSearcher(searcher)
        interactor.connectController(controller)
    }
}

/// A refinement list of a facet merged across a federated search's indices.
@MainActor
public final class MergedFacetListConnector {
    public let interactor: FacetListInteractor
    public let controller: any FacetListController

    public init(
        searcher: FederatedSearcher, filterState: FilterState, attribute: String, operator op: RefinementOperator = .or,
        controller: some FacetListController
    ) {
        self.controller = controller
        interactor = FacetListInteractor()
        interactor.connectMergedFacets(of: searcher, attribute: attribute)
        interactor.connectFilterState(filterState, attribute: attribute, operator: op)
        interactor.connectController(controller)
    }
}

/// A refinement list whose values can be searched ("search in brands"): the counted values,
/// or while a facet query is typed, the values a facet search finds.
@MainActor
public final class FacetSearchConnector {
    public let facetSearcher: FacetSearcher
    public let interactor: FacetListInteractor
    public let controller: any FacetListController

    public init(
        source: some SearchResultsSource, facetSearcher: FacetSearcher, filterState: FilterState,
        operator op: RefinementOperator = .or, controller: some FacetListController
    ) {
        self.facetSearcher = facetSearcher
        self.controller = controller
        interactor = FacetListInteractor()
        interactor.connectSearcher(source, attribute: facetSearcher.facetName)
        interactor.connectFacetSearcher(facetSearcher)
        interactor.connectFilterState(filterState, attribute: facetSearcher.facetName, operator: op)
        interactor.connectController(controller)
        facetSearcher.connectFilterState(filterState)
    }
}

/// The filters in force, each removable.
@MainActor
public final class CurrentFiltersConnector {
    public let interactor = CurrentFiltersInteractor()
    public let controller: any CurrentFiltersController

    public init(filterState: FilterState, groups: Set<FilterGroupID>? = nil, controller: some CurrentFiltersController) {
        self.controller = controller
        interactor.connectFilterState(filterState, groups: groups)
        interactor.connectController(controller)
    }
}

/// A button that clears filters.
@MainActor
public final class FilterClearConnector {
    public let interactor = FilterClearInteractor()
    public let controller: any FilterClearController

    public init(filterState: FilterState, clearMode: ClearMode = .except([]), controller: some FilterClearController) {
        self.controller = controller
        interactor.connectFilterState(filterState, clearMode: clearMode)
        interactor.connectController(controller)
    }
}

/// A switch that adds or removes one filter.
@MainActor
public final class FilterToggleConnector {
    public let interactor: FilterToggleInteractor
    public let controller: any FilterToggleController

    public init(filterState: FilterState, filter: Filter, groupID: FilterGroupID? = nil, controller: some FilterToggleController) {
        self.controller = controller
        interactor = FilterToggleInteractor(filter: filter)
        interactor.connectFilterState(filterState, groupID: groupID)
        interactor.connectController(controller)
    }
}

/// A numeric range of one attribute, its bounds from the results' `facets_stats`.
@MainActor
public final class NumberRangeConnector {
    public let interactor = NumberRangeInteractor()
    public let controller: any NumberRangeController

    public init(source: some SearchResultsSource, filterState: FilterState, attribute: String, controller: some NumberRangeController) {
        self.controller = controller
        interactor.connectSearcher(source, attribute: attribute)
        interactor.connectFilterState(filterState, attribute: attribute)
        interactor.connectController(controller)
    }
}

/// Whether a search is running.
@MainActor
public final class LoadingConnector {
    public let interactor = LoadingInteractor()
    public let controller: any LoadingController

    public init(searcher: some Searcher, controller: some LoadingController) {
        self.controller = controller
        interactor.connectSearcher(searcher)
        interactor.connectController(controller)
    }
}

/// Pages of one index's results.
@MainActor
public final class PaginationConnector {
    public let interactor = PaginationInteractor()
    public let controller: any PaginationController

    public init(source: some SearchResultsSource, controller: some PaginationController) {
        self.controller = controller
        interactor.connectSearcher(source)
        interactor.connectController(controller)
    }
}

/// How the merged list is built (InstantSearch's SortBy, for a federated search).
@MainActor
public final class MergeStrategyConnector {
    public let interactor: MergeStrategyInteractor
    public let controller: any MergeStrategyController

    public init(
        searcher: FederatedSearcher, items: [MergeStrategyInteractor.Item] = MergeStrategyInteractor.Item.all,
        controller: some MergeStrategyController
    ) {
        self.controller = controller
        interactor = MergeStrategyInteractor(items: items, selected: searcher.merge?["strategy"]?.stringValue ?? "score")
        interactor.connectSearcher(searcher)
        interactor.connectController(controller)
    }
}

/// A hierarchical menu over one attribute per level, its path kept in a filter state.
@MainActor
public final class HierarchicalMenuConnector {
    public let interactor: HierarchicalMenuInteractor
    public let controller: any HierarchicalMenuController

    public init(
        source: some SearchResultsSource, filterState: FilterState, attributes: [String], separator: String = " > ",
        controller: some HierarchicalMenuController
    ) {
        self.controller = controller
        interactor = HierarchicalMenuInteractor(attributes: attributes, separator: separator)
        interactor.connectSearcher(source)
        interactor.connectFilterState(filterState)
        interactor.connectController(controller)
    }
}
