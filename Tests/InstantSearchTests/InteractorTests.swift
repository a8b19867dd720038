import Testing
import FederatedSearchCore
import FederatedSearchProtocol
@testable import InstantSearch

/// Each widget's logic against fake controllers and a fake searcher (no socket): what the
/// controller is shown, what the user's actions do to the searcher and the filter state.
@MainActor
struct InteractorTests {
    @Test func searchBoxSearchesAsYouTypeOrOnSubmit() {
        let searcher = FakeSearcher()
        let typing = SearchBoxInteractor()
        let view = FakeSearchBoxController()
        typing.connectSearcher(searcher)
        typing.connectController(view)
        view.onQueryChanged?("st")
        view.onQueryChanged?("sta")
        #expect(searcher.searches.map(\.query) == ["st", "sta"])
        typing.query = "reset elsewhere"
        #expect(view.shown.last == "reset elsewhere")

        let submitting = SearchBoxInteractor()
        let other = FakeSearcher()
        let view2 = FakeSearchBoxController()
        submitting.connectSearcher(other, searchTriggeringMode: .searchOnSubmit)
        submitting.connectController(view2)
        view2.onQueryChanged?("dune")
        #expect(other.searches.isEmpty)
        view2.onQuerySubmitted?("dune")
        #expect(other.searches.map(\.query) == ["dune"])
    }

    @Test func disconnectingStopsTheFlow() {
        let searcher = FakeSearcher()
        let box = SearchBoxInteractor()
        let c = box.connectSearcher(searcher)
        box.query = "a"
        c.disconnect()
        box.query = "ab"
        #expect(searcher.searches.map(\.query) == ["a"])
        c.connect()
        box.query = "abc"
        #expect(searcher.searches.map(\.query) == ["a", "abc"])
    }

    @Test func hitsReplacePagesOrJoinThemWithInfiniteScrolling() {
        let source = FakeSearcher()
        let hits = HitsInteractor(infiniteScrolling: true, prefetchDistance: 1)
        let view = FakeHitsController()
        hits.connectSearcher(source)
        hits.connectController(view)
        source.onResults.fire(results("movies", query: "star", titles: ["A", "B", "C"], page: 0, nbPages: 2))
        #expect(view.titles == ["A", "B", "C"] && view.scrolls == 1)
        _ = hits.hit(atIndex: 2)  // near the end: the next page is asked for, once
        _ = hits.hit(atIndex: 2)
        #expect(source.searches.map(\.page) == [1])
        source.onResults.fire(results("movies", query: "star", titles: ["D"], page: 1, nbPages: 2))
        #expect(view.titles == ["A", "B", "C", "D"])
        _ = hits.hit(atIndex: 3)
        #expect(source.searches.count == 1, "the last page asks for nothing more")
        source.onResults.fire(results("movies", query: "stars", titles: ["E"], page: 0, nbPages: 1))
        #expect(view.titles == ["E"])

        let paged = HitsInteractor()
        paged.connectSearcher(source)
        source.onResults.fire(results("movies", query: "x", titles: ["P2"], page: 2, nbPages: 3))
        #expect(paged.hits.count == 1)
    }

    @Test func facetListShowsCountsKeepsSelectionsAndRefinesTheFilterState() {
        let source = FakeSearcher()
        let fs = FilterState()
        let list = FacetListInteractor()
        let view = FakeFacetListController()
        list.connectSearcher(source, attribute: "genres")
        list.connectFilterState(fs, attribute: "genres", operator: .or)
        list.connectController(view)
        #expect(source.parameters.facets == ["genres"])
        source.onResults.fire(
            results(
                "movies", query: "", titles: [],
                facets: [
                    FacetCounts(attribute: "genres", values: [("Drama", 10), ("Comedy", 7), ("Action", 7)])
                ]))
        #expect(view.shown == ["Drama 10", "Action 7", "Comedy 7"])
        view.click("Comedy")
        #expect(fs.filters.text() == "genres:Comedy")
        #expect(fs.filters.disjunctiveFacets() == ["genres"])
        #expect(view.shown == ["Comedy 7 *", "Drama 10", "Action 7"])
        // A query where Comedy has no hits: it stays listed, selected, with 0.
        source.onResults.fire(
            results(
                "movies", query: "war", titles: [],
                facets: [
                    FacetCounts(attribute: "genres", values: [("War", 3)])
                ]))
        #expect(view.shown == ["Comedy 0 *", "War 3"])
        view.click("War")
        #expect(fs.filters.text() == "(genres:Comedy OR genres:War)")
        fs.removeAll()
        #expect(list.selections.isEmpty)

        let single = FacetListInteractor(selectionMode: .single, sortBy: [.alphabetical])
        single.update([Facet(value: "b", count: 1), Facet(value: "A", count: 2)])
        single.toggleSelection("A")
        single.toggleSelection("b")
        #expect(single.selections == ["b"])
        #expect(single.items.map(\.value) == ["A", "b"])
    }

    @Test func currentFiltersClearAndToggle() {
        let fs = FilterState()
        let drama = Filter.facet(attribute: "genres", value: "Drama")
        let toggle = FilterToggleInteractor(filter: drama)
        let toggleView = FakeToggleController()
        toggle.connectFilterState(fs, groupID: .or("genres"))
        toggle.connectController(toggleView)
        toggleView.onClick?()
        #expect(fs.contains(drama, inGroupWithID: .or("genres")) && toggleView.isSelected)

        let current = CurrentFiltersInteractor()
        let currentView = FakeCurrentFiltersController()
        current.connectFilterState(fs)
        current.connectController(currentView)
        fs.add(.numeric(attribute: "year", op: .greaterOrEqual, value: 2000), toGroupWithID: .and("year"))
        #expect(currentView.items.map(\.text) == ["genres: Drama", "year >= 2000"])
        currentView.onRemoveItem?(currentView.items[0])
        #expect(!toggleView.isSelected, "removing the filter elsewhere switches the toggle off")

        let clear = FilterClearInteractor()
        let clearView = FakeClearController()
        clear.connectFilterState(fs)
        clear.connectController(clearView)
        clearView.onClick?()
        #expect(fs.filters.isEmpty && currentView.items.isEmpty)
    }

    @Test func numberRangeTakesBoundsAndSetsARangeFilter() {
        let source = FakeSearcher()
        let fs = FilterState()
        let range = NumberRangeInteractor()
        let view = FakeRangeController()
        range.connectSearcher(source, attribute: "year")
        range.connectFilterState(fs, attribute: "year")
        range.connectController(view)
        source.onResults.fire(
            results("movies", query: "", titles: [], stats: [FacetStats(attribute: "year", min: 1901, max: 2020, avg: 1990, sum: 0)]))
        #expect(view.bounds == 1901...2020)
        view.onRangeChanged?(1800...1999)
        #expect(fs.filters.text() == "year:1901 TO 1999", "clamped to the bounds")
        #expect(view.range == 1901...1999)
        view.onRangeChanged?(2030...2040)
        #expect(fs.filters.text() == "year:2020 TO 2020", "a range past the bounds is clamped, not a crash")
        view.onRangeChanged?(nil)
        #expect(fs.filters.isEmpty)
    }

    @Test func statsLoadingPaginationMergedAndSourceStatus() async {
        let source = FakeSearcher()
        let view = FakeStatsController()
        let stats = StatsInteractor()
        stats.connectSearcher(source)
        stats.connectController(view)
        let pages = PaginationInteractor()
        pages.connectSearcher(source)
        pages.connectController(view)
        let loading = LoadingInteractor()
        loading.connectSearcher(source)
        loading.connectController(view)
        var r = results("movies", query: "star", titles: ["a"], page: 0, nbPages: 4)
        r.nbHits = 1234
        source.onResults.fire(r)
        #expect(view.stats?.text == "1,234 results in 0.3 ms")
        #expect(view.pages == (0, 4))
        view.onClick?(2)
        #expect(source.searches.last?.page == 2)
        source.isLoading.fire(true)
        source.isLoading.fire(false)
        #expect(view.loading == [false, true, false])

        let t = FakeTransport()
        let fed = FederatedSearcher(transport: t, indices: [SearcherId(index: "movies")])
        let status = SourceStatusInteractor()
        status.connectSearcher(fed)
        status.connectController(view)
        let merged = MergedHitsInteractor()
        merged.connectSearcher(fed)
        merged.connectController(view)
        fed.search()
        let hit = Hit(objectID: "m1", attributes: [:], rankingScore: 0.9)
        t.answer(
            0,
            [
                .merged(id: nil, results: MergedResults(hits: [MergedHit(index: "movies", hit: hit)], nbHits: 1)),
                .done(
                    id: nil, status: .partial, sources: [("movies", SourceReport(status: .timeout, ms: 500, errorCode: .timeout))], ms: 501),
            ])
        await settle()
        #expect(view.merged == ["movies:m1"])
        #expect(view.status?.last?.sources.first?.report.status == .timeout)
        #expect(view.status?.isLoading == false)
    }

    /// The merged list scrolls on: a row near the end of those loaded asks for the next page
    /// (once), which joins the list if it answers the same query and follows it.
    @Test func theMergedListLoadsItsNextPage() {
        let merged = MergedHitsInteractor()
        final class Asked { var offsets: [Int] = [] }
        let record = Asked()
        merged.onPageRequested.subscribe(with: record) { r, offset in r.offsets.append(offset) }
        var asked: [Int] { record.offsets }
        let hits = (0..<20).map { MergedHit(index: "movies", hit: Hit(objectID: "m\($0)", attributes: [:], rankingScore: 1)) }
        merged.update(MergedResults(hits: hits, nbHits: 50), query: "star")
        _ = merged.hit(atIndex: 3)
        #expect(asked.isEmpty)
        _ = merged.hit(atIndex: 16)
        _ = merged.hit(atIndex: 17)
        #expect(asked == [20], "asked once")
        let more = (20..<40).map { MergedHit(index: "products", hit: Hit(objectID: "p\($0)", attributes: [:], rankingScore: 1)) }
        merged.append(MergedPage(query: "other", offset: 20, results: MergedResults(hits: more, nbHits: 50)))
        #expect(merged.hits.count == 20, "a page of another query is dropped")
        merged.append(MergedPage(query: "star", offset: 20, results: MergedResults(hits: more, nbHits: 50)))
        #expect(merged.hits.count == 40 && merged.hits[20].hit.objectID == "p20")
        merged.update(MergedResults(hits: [], nbHits: 0), query: "zz")
        _ = merged.hit(atIndex: 0)
        #expect(asked == [20], "nothing to load in an empty list")
    }

    /// Records of your own type: each page decoded once as it arrives, a joined page alone; a
    /// hit that does not decode is counted, not shown.
    @Test func hitsDecodeAsRecordsOfYourOwnType() {
        struct Movie: Decodable, Sendable, Equatable {
            let objectID: String
            let title: String
            let year: Int?
        }
        let hits = HitsInteractor(infiniteScrolling: true)
        let movies = HitRecords<Movie>(hits)
        func page(_ n: Int, _ docs: [JSONObject]) -> SearchResults {
            SearchResults(
                hits: docs.map { Hit(objectID: $0["objectID"]?.stringValue ?? "", attributes: $0, rankingScore: 1) },
                nbHits: 5, page: n, nbPages: 2, hitsPerPage: 3, processingTimeMS: 1, query: "q", index: "movies")
        }
        hits.update(
            page(
                0,
                [
                    ["objectID": "1", "title": "Alien", "year": 1979], ["objectID": "2", "title": "Heat"],
                    ["objectID": "3", "year": 1999],
                ]))
        #expect(movies.records == [Movie(objectID: "1", title: "Alien", year: 1979), Movie(objectID: "2", title: "Heat", year: nil)])
        #expect(movies.undecodable == 1, "no title")
        hits.update(page(1, [["objectID": "4", "title": "Ran"], ["objectID": "5", "title": "Up"]]))
        #expect(movies.records.map(\.title) == ["Alien", "Heat", "Ran", "Up"])
        hits.update(page(0, [["objectID": "9", "title": "Jaws"]]))
        #expect(movies.records.map(\.title) == ["Jaws"] && movies.undecodable == 0, "a new first page replaces")
    }

    /// A hierarchical menu shows the first level and the children of the selected path;
    /// selecting a value selects its path (a filter per level in one hierarchical group, the
    /// deepest applied), selecting a selected one goes back to its parent.
    @Test func aHierarchicalMenuFollowsItsPath() {
        final class View: HierarchicalMenuController {
            var items: [HierarchicalItem] = []
            var onClick: ((String) -> Void)?
            func setItems(_ items: [HierarchicalItem]) { self.items = items }
            var shown: [String] {
                items.map { String(repeating: "  ", count: $0.level) + "\($0.label) \($0.count)\($0.isSelected ? " *" : "")" }
            }
        }
        let menu = HierarchicalMenuInteractor(attributes: ["cat.lvl0", "cat.lvl1", "cat.lvl2"])
        let fs = FilterState()
        let view = View()
        menu.connectFilterState(fs)
        menu.connectController(view)
        menu.update(levels: [
            [Facet(value: "Electronics", count: 10), Facet(value: "Books", count: 4)],
            [
                Facet(value: "Electronics > TV", count: 6), Facet(value: "Electronics > Audio", count: 4),
                Facet(value: "Books > Poetry", count: 4),
            ],
            [Facet(value: "Electronics > TV > OLED", count: 2)],
        ])
        #expect(view.shown == ["Electronics 10", "Books 4"])
        view.onClick?("Electronics")
        #expect(view.shown == ["Electronics 10 *", "  TV 6", "  Audio 4", "Books 4"])
        view.onClick?("Electronics > TV")
        #expect(view.shown == ["Electronics 10 *", "  TV 6 *", "    OLED 2", "  Audio 4", "Books 4"])
        #expect(fs.filters.text() == "cat.lvl1:\"Electronics > TV\"", "the deepest filter applies")
        view.onClick?("Electronics > TV")
        #expect(view.shown == ["Electronics 10 *", "  TV 6", "  Audio 4", "Books 4"], "back to its parent")
        fs.removeAll()
        #expect(view.shown == ["Electronics 10", "Books 4"], "cleared from the filter state")
    }
}
