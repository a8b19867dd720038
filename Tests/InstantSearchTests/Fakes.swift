import FederatedSearchCore
import FederatedSearchProtocol
@testable import InstantSearch

/// A searcher with no daemon: it counts searches and lets the test fire its events.
@MainActor
final class FakeSearcher: Searcher, SearchResultsSource {
    var query: String? {
        didSet { if oldValue != query { onQueryChanged.fire(query) } }
    }
    var parameters = SearchParameters()
    let onQueryChanged = Observer<String?>()
    let isLoading = Observer<Bool>()
    let onError = Observer<SearcherError>()
    let onSearch = Observer<String?>()
    let onResults = Observer<SearchResults>()
    var searches: [(query: String?, page: Int)] = []
    var cancels = 0

    func search() {
        searches.append((query, parameters.page))
        onSearch.fire(query)
    }

    func cancel() { cancels += 1 }
}

/// Controllers that record what they were told, for each widget.
@MainActor
final class FakeSearchBoxController: SearchBoxController {
    var onQueryChanged: ((String?) -> Void)?
    var onQuerySubmitted: ((String?) -> Void)?
    var shown: [String?] = []
    func setQuery(_ query: String?) { shown.append(query) }
}

@MainActor
final class FakeHitsController: HitsController {
    var hitsSource: HitsInteractor?
    var reloads = 0
    var scrolls = 0
    func reload() { reloads += 1 }
    func scrollToTop() { scrolls += 1 }
    var titles: [String] {
        (0..<(hitsSource?.numberOfHits ?? 0)).compactMap { hitsSource?.hits[$0].attributes["title"]?.stringValue }
    }
}

@MainActor
final class FakeFacetListController: FacetListController {
    var onClick: ((Facet) -> Void)?
    var items: [(item: Facet, isSelected: Bool)] = []
    func setSelectableItems(_ items: [(item: Facet, isSelected: Bool)]) { self.items = items }
    func reload() {}
    var shown: [String] { items.map { "\($0.item.value) \($0.item.count)\($0.isSelected ? " *" : "")" } }
    func click(_ value: String) { onClick?(items.first { $0.item.value == value }!.item) }
}

@MainActor
final class FakeCurrentFiltersController: CurrentFiltersController {
    var onRemoveItem: ((FilterAndID) -> Void)?
    var items: [FilterAndID] = []
    func setItems(_ items: [FilterAndID]) { self.items = items }
}

@MainActor
final class FakeClearController: FilterClearController {
    var onClick: (() -> Void)?
}

@MainActor
final class FakeToggleController: FilterToggleController {
    var onClick: (() -> Void)?
    var isSelected = false
    func setItem(_ filter: Filter, isSelected: Bool) { self.isSelected = isSelected }
}

@MainActor
final class FakeRangeController: NumberRangeController {
    var onRangeChanged: ((ClosedRange<Double>?) -> Void)?
    var bounds: ClosedRange<Double>?
    var range: ClosedRange<Double>?
    func setBounds(_ bounds: ClosedRange<Double>?) { self.bounds = bounds }
    func setItem(_ range: ClosedRange<Double>?) { self.range = range }
}

@MainActor
final class FakeStatsController: StatsController, LoadingController, PaginationController, SourceStatusController,
    MergedHitsController
{
    var stats: SearchStats?
    var loading: [Bool] = []
    var onClick: ((Int) -> Void)?
    var pages: (Int, Int) = (0, 0)
    var status: SourceStatusInteractor.State?
    var merged: [String] = []
    var hitsSource: MergedHitsInteractor?
    func setItem(_ stats: SearchStats?) { self.stats = stats }
    func setItem(_ isLoading: Bool) { loading.append(isLoading) }
    func setPages(current: Int, count: Int) { pages = (current, count) }
    func setItem(_ state: SourceStatusInteractor.State) { status = state }
    func setHits(_ hits: [MergedHit], nbHits: Int) { merged = hits.map { "\($0.index):\($0.hit.objectID)" } }
}
