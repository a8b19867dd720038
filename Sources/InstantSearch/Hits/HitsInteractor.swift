import FederatedSearchCore

/// The hits of one index: the current page's, or every page loaded so far with infinite
/// scrolling (asking for a hit near the end of those loaded loads the next page).
@MainActor
public final class HitsInteractor {
    /// The hits to show, in order.
    public private(set) var hits: [Hit] = []
    /// The last results received.
    public private(set) var results: SearchResults?
    /// Whether the pages join up (infinite scrolling) or each replaces the last.
    public let infiniteScrolling: Bool
    /// How close to the end a requested row loads the next page.
    public let prefetchDistance: Int
    /// Whether hits are shown for an empty query.
    public var showItemsOnEmptyQuery: Bool
    /// Fired with each results received.
    public let onResultsUpdated = Observer<SearchResults>()
    /// Fired with the page asked for when more hits are needed (the searcher connection
    /// answers it).
    public let onPageRequested = Observer<Int>()
    public var connections: [any Connection] = []
    private var pageRequested: Int?

    public init(infiniteScrolling: Bool = false, prefetchDistance: Int = 5, showItemsOnEmptyQuery: Bool = true) {
        self.infiniteScrolling = infiniteScrolling
        self.prefetchDistance = prefetchDistance
        self.showItemsOnEmptyQuery = showItemsOnEmptyQuery
    }

    /// The number of hits to show.
    public var numberOfHits: Int { hits.count }

    /// Whether the last page was loaded.
    public var isLastPage: Bool { results.map { $0.page + 1 >= $0.nbPages } ?? true }

    /// The hit at `index`; with infinite scrolling, asking near the end loads the next page.
    public func hit(atIndex index: Int) -> Hit? {
        guard hits.indices.contains(index) else { return nil }
        if infiniteScrolling, index >= hits.count - prefetchDistance { loadMoreIfNeeded() }
        return hits[index]
    }

    /// Asks for the next page unless it was asked already or this is the last page.
    public func loadMoreIfNeeded() {
        guard let results, !isLastPage else { return }
        let next = results.page + 1
        guard pageRequested != next else { return }
        pageRequested = next
        onPageRequested.fire(next)
    }

    /// Takes an index's answer: page 0 (or any page without infinite scrolling) replaces the
    /// hits; the page after the last one loaded joins them.
    public func update(_ results: SearchResults) {
        let empty = results.query.isEmpty && !showItemsOnEmptyQuery
        if empty {
            hits = []
        } else if infiniteScrolling, results.page > 0, let last = self.results, results.page == last.page + 1,
            results.query == last.query
        {
            hits += results.hits
        } else if !infiniteScrolling || results.page == 0 {
            hits = results.hits
        } else {
            return  // a later page of another query: its first page is on its way
        }
        pageRequested = nil
        self.results = results
        onResultsUpdated.fire(results)
    }
}
