/// Connectors: a searcher, an interactor and its controller wired for the common case, in one
/// value that keeps them (InstantSearch's `...Connector` types).

/// A search box that searches as you type.
@MainActor
public final class SearchBoxConnector {
    public let searcher: any Searcher
    public let interactor: SearchBoxInteractor
    public let controller: any SearchBoxController

    public init(searcher: some Searcher, controller: some SearchBoxController,
                searchTriggeringMode: SearchTriggeringMode = .searchAsYouType) {
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

    public init(source: some SearchResultsSource, filterState: FilterState, attribute: String,
                operator op: RefinementOperator = .or, selectionMode: FacetListInteractor.SelectionMode = .multiple,
                controller: some FacetListController) {
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
