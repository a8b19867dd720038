import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
@testable import InstantSearch

extension Request.Operation {
    /// The search, if this is one.
    fileprivate var searchRequest: SearchRequest? {
        if case .search(let s) = self { return s }
        return nil
    }

    /// The facet-values request, if this is one.
    fileprivate var facetValuesRequest: FacetValuesRequest? {
        if case .searchForFacetValues(let r) = self { return r }
        return nil
    }
}

extension FederatedSearcher.Outcome {
    /// The status of a search that finished.
    fileprivate var finishedStatus: FederatedSearcher.Status? {
        if case .finished(let status) = self { return status }
        return nil
    }

    /// The error of a search that failed.
    fileprivate var failure: SearcherError? {
        if case .failed(let e) = self { return e }
        return nil
    }
}

/// The searchers against a fake transport:
/// 1. each search carries the searcher's session and a growing seq, and every source's params;
/// 2. per-source results are delivered as their frames arrive, then merged, then status;
/// 3. a frame of an older keystroke is never delivered after a newer one's, whatever order
///    the frames come in; a superseded search reports nothing;
/// 4. a search that failed for want of a daemon is sent again when the link comes back.
@MainActor
struct FederatedSearcherTests {
    final class Log {
        var events: [String] = []
    }

    func searcher(_ t: FakeTransport) -> FederatedSearcher {
        FederatedSearcher(transport: t, indices: [SearcherId(index: "movies"), SearcherId(index: "products")])
    }

    @Test func searchesCarryTheSessionAGrowingSeqAndEachSourcesParameters() throws {
        let t = FakeTransport()
        let s = searcher(t)
        s.source("movies")!.parameters.hitsPerPage = 5
        s.query = "st"
        s.search()
        s.query = "sta"
        s.search()
        let sent = t.searches
        #expect(sent.count == 2)
        #expect(sent.map(\.query) == ["st", "sta"])
        #expect(sent[0].session != nil && sent[0].session == sent[1].session)
        #expect(sent.map(\.seq) == [1, 2])
        #expect(sent[1].targets?.map(\.name) == ["movies", "products"])
        let movies = try #require(sent[1].targets?[0])
        #expect(try sent[1].parameters(for: movies).hitsPerPage == 5)
    }

    @Test func framesAreDeliveredAsTheyArriveThenMergedThenStatus() async {
        let t = FakeTransport()
        let s = searcher(t)
        let log = Log()
        s.onIndexResults.subscribe(with: log) { l, r in l.events.append("results \(r.source) \(r.results.query)") }
        s.onMergedResults.subscribe(with: log) { l, m in l.events.append("merged \(m.hits.count)") }
        s.onStatus.subscribe(with: log) { l, st in l.events.append("status \(st.status.rawValue) \(st.sources.map(\.name))") }
        s.isLoading.subscribe(with: log) { l, v in l.events.append("loading \(v)") }
        s.query = "star"
        s.search()
        t.answer(0, [.results(id: nil, index: "products", results: results("products", query: "star", titles: ["Star lamp"]))], end: false)
        await settle()
        #expect(log.events == ["loading true", "results products star"])
        t.answer(
            0,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "star", titles: ["Star Wars"])),
                .merged(id: nil, results: MergedResults(hits: [], nbHits: 2)),
                .done(
                    id: nil, status: .ok,
                    sources: [("movies", SourceReport(status: .ok, ms: 0.2)), ("products", SourceReport(status: .ok, ms: 0.1))], ms: 0.4),
            ])
        await settle()
        #expect(
            log.events == [
                "loading true", "results products star", "results movies star", "merged 0",
                "status ok [\"movies\", \"products\"]", "loading false",
            ])
    }

    @Test func eachLineEqualsTheRequestEncodedInFullAsItsInputsChange() throws {
        let t = FakeTransport()
        let s = searcher(t)
        let fs = FilterState()
        s.connectFilterState(fs, sources: ["movies"])
        func check() throws {
            var plain = try #require(t.searches.last)
            let line = Request(id: "c", operation: .search(plain)).line()
            plain.encodedMembers = EncodedSearchMembers()
            #expect(line == Request(id: "c", operation: .search(plain)).line(), "\(String(decoding: line, as: UTF8.self))")
        }
        for (i, q) in ["s", "st", "sta"].enumerated() {
            s.query = q
            s.search()
            try check()
            switch i {  // change one input after each keystroke: the next line must follow
            case 0: s.source("movies")!.parameters.hitsPerPage = 3
            case 1: fs.add(.facet(attribute: "genres", value: "Drama"), toGroupWithID: .or("genres"))
            default: s.facetAliases = ["brand": ["products": "supplier"]]
            }
        }
        s.query = "star"
        s.search()
        try check()
        let last = try #require(t.searches.last)
        #expect(last.facetAliases != nil)
        #expect(try last.parameters(for: last.targets![0]).hitsPerPage == 3)
    }

    /// A transport that gives only `Response`s: the searcher reads them through the protocol's
    /// default `send(_:onMainActor:)`, a main-actor task per request.
    final class ResponseOnlyTransport: SearchTransport {
        let fake: FakeTransport
        init(_ fake: FakeTransport) { self.fake = fake }
        func send(_ operation: Request.Operation) throws(ClientError) -> Response { try fake.send(operation) }
        func states() -> AsyncStream<ConnectionState> { fake.states() }
    }

    @Test func aTransportOfResponsesOnlyFeedsTheSearcherToo() async {
        let t = FakeTransport()
        let s = FederatedSearcher(transport: ResponseOnlyTransport(t), indices: [SearcherId(index: "movies")])
        let log = Log()
        s.onIndexResults.subscribe(with: log) { l, r in l.events.append("results \(r.source)") }
        s.onStatus.subscribe(with: log) { l, st in l.events.append("status \(st.status.rawValue)") }
        s.onError.subscribe(with: log) { l, e in l.events.append("error \(e.code)") }
        s.query = "star"
        s.search()
        t.answer(
            0,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "star", titles: ["Star Wars"])),
                .done(id: nil, status: .ok, sources: [("movies", SourceReport(status: .ok, ms: 0.2))], ms: 0.4),
            ])
        await settle()
        #expect(log.events == ["results movies", "status ok"])
        s.search()
        t.fail(1, .disconnected("gone"))
        await settle()
        #expect(log.events.last == "error disconnected")
    }

    @Test func anOlderKeystrokeIsNeverDeliveredAfterANewerOne() async {
        let t = FakeTransport()
        let s = searcher(t)
        let log = Log()
        s.onIndexResults.subscribe(with: log) { l, r in l.events.append("\(r.seq):\(r.source)") }
        s.onStatus.subscribe(with: log) { l, st in l.events.append("\(st.seq):done") }
        for q in ["s", "st", "sta"] {
            s.query = q
            s.search()
        }
        // The newest answers first; then the older ones' frames race in.
        t.answer(2, [.results(id: nil, index: "movies", results: results("movies", query: "sta", titles: ["a"]))], end: false)
        await settle()
        t.answer(
            0,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "s", titles: ["b"])),
                .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        t.answer(1, [.done(id: nil, status: .superseded, sources: [], ms: 1)])
        await settle()
        t.answer(
            2,
            [
                .results(id: nil, index: "products", results: results("products", query: "sta", titles: ["c"])),
                .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        await settle()
        #expect(log.events == ["3:movies", "3:products", "3:done"])
        #expect(!s.isSearching)
    }

    @Test func perSourceErrorsAndRequestErrorsAreReported() async {
        let t = FakeTransport()
        let s = searcher(t)
        let log = Log()
        s.onError.subscribe(with: log) { l, e in l.events.append("\(e.source ?? "-") \(e.code)") }
        s.source("products")!.onError.subscribe(with: log) { l, e in l.events.append("products says \(e.code)") }
        s.search()
        t.answer(
            0,
            [
                .error(id: nil, index: "products", error: SearchError(.timeout, "late")),
                .done(id: nil, status: .partial, sources: [], ms: 1),
            ])
        await settle()
        s.search()
        t.answer(1, [.error(id: nil, index: nil, error: SearchError(.invalidFilter, "params.filters: bad"))])
        await settle()
        #expect(log.events == ["products says timeout", "products timeout", "- invalid_filter"])
    }

    @Test func aSearchLostToADeadDaemonIsSentAgainWhenItIsBack() async {
        let t = FakeTransport()
        let s = searcher(t)
        let log = Log()
        s.onError.subscribe(with: log) { l, e in l.events.append(e.code) }
        s.query = "dune"
        t.failure.withLock { $0 = .unavailable("cannot connect to /x.sock") }
        s.search()
        #expect(log.events == ["unavailable"])
        t.failure.withLock { $0 = nil }
        t.announce(.connected)
        for _ in 0..<100 where t.searches.isEmpty { await Task.yield() }
        #expect(t.searches.map(\.query) == ["dune"], "the search was not sent again on reconnection")
    }

    @Test func cancelStopsDeliveryAndLoading() async {
        let t = FakeTransport()
        let s = searcher(t)
        let log = Log()
        s.onIndexResults.subscribe(with: log) { l, _ in l.events.append("results") }
        s.isLoading.subscribe(with: log) { l, v in l.events.append("loading \(v)") }
        s.search()
        s.cancel()
        t.answer(0, [.results(id: nil, index: "movies", results: results("movies", query: "", titles: ["x"]))])
        await settle()
        #expect(log.events == ["loading true", "loading false"])
    }

    @Test func aNewQueryStartsEverySourceFromItsFirstPage() {
        let t = FakeTransport()
        let s = searcher(t)
        s.source("movies")!.parameters.page = 3
        s.query = "new"
        #expect(s.source("movies")!.parameters.page == 0)
    }

    @Test func filterStatesApplyToTheirSourcesWithAliases() throws {
        let t = FakeTransport()
        let s = searcher(t)
        s.facetAliases = ["brand": ["products": "supplier"]]
        let moviesFilters = FilterState()
        let shared = FilterState()
        s.connectFilterState(moviesFilters, sources: ["movies"])
        s.connectFilterState(shared, sources: ["products"])
        moviesFilters.add(.facet(attribute: "genres", value: "Drama"), toGroupWithID: .or("genres"))
        shared.add(.facet(attribute: "brand", value: "HP"), toGroupWithID: .or("brand"))
        let last = try #require(t.searches.last)
        let movies = try last.parameters(for: last.targets![0])
        let products = try last.parameters(for: last.targets![1])
        #expect(movies.filters == "genres:Drama")
        #expect(movies.disjunctiveFacets == ["genres"])
        #expect(products.filters == "supplier:HP")
        #expect(products.disjunctiveFacets == ["supplier"])
        #expect(last.facetAliases == ["brand": ["products": "supplier"]])
        #expect(t.searches.count == 2, "each filter change searched again")
    }

    @Test func theSearchersParametersReachEverySourceWithItsOwnFilters() throws {
        let t = FakeTransport()
        let s = searcher(t)
        s.parameters.hitsPerPage = 7
        s.parameters.filters = "year >= 2000"
        s.source("products")!.parameters.hitsPerPage = 3
        s.source("products")!.parameters.numericFilters = ["price < 100"]
        let fs = FilterState()
        s.connectFilterState(fs, sources: ["movies"])
        fs.add(.facet(attribute: "genres", value: "Drama"), toGroupWithID: .or("genres"))
        let last = try #require(t.searches.last)
        let movies = try last.parameters(for: last.targets![0])
        let products = try last.parameters(for: last.targets![1])
        #expect(movies.hitsPerPage == 7 && products.hitsPerPage == 3)
        #expect(movies.filter == (try FilterParser.parse("year >= 2000 AND genres:Drama")))
        #expect(products.filter == (try FilterParser.parse("price < 100 AND year >= 2000")), "\(products.filters ?? "none")")
    }

    @Test func searchAndWaitReturnsHowItsOwnSearchEnded() async throws {
        let t = FakeTransport()
        let s = searcher(t)
        s.query = "a"
        async let first = s.searchAndWait()
        await settle()
        s.query = "ab"
        async let second = s.searchAndWait()
        await settle()
        t.answer(1, [.done(id: nil, status: .ok, sources: [], ms: 1)])
        t.answer(0, [.done(id: nil, status: .ok, sources: [], ms: 2)])
        let (a, b) = await (first, second)
        #expect(a == .superseded, "the older search's done came after the newer one's")
        let status = try #require(b.finishedStatus, "\(b)")
        #expect(status.query == "ab" && status.seq == 2)
        t.failure.withLock { $0 = .unavailable("down") }
        let outcome = await s.searchAndWait()
        let e = try #require(outcome.failure, "no failure")
        #expect(e.code == "unavailable")
    }

    @Test func aColumnThatLoadsAPageAsksItsIndexAlone() async throws {
        let t = FakeTransport()
        let s = searcher(t)
        let movies = HitsInteractor(infiniteScrolling: true, prefetchDistance: 1)
        let products = HitsInteractor()
        movies.connectSearcher(s.source("movies")!)
        products.connectSearcher(s.source("products")!)
        s.query = "star"
        s.search()
        t.answer(
            0,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "star", titles: ["A", "B"], nbPages: 2)),
                .results(id: nil, index: "products", results: results("products", query: "star", titles: ["P"])),
                .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        await settle()
        _ = movies.hit(atIndex: 1)
        #expect(t.requests.count == 2)
        let page = try #require(t.searches.last)
        #expect(page.targets?.map(\.name) == ["movies"] && page.session == nil && page.params.page == 1)
        t.answer(
            1,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "star", titles: ["C"], page: 1, nbPages: 2)),
                .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        await settle()
        #expect(movies.hits.count == 3 && products.hits.count == 1)
    }

    @Test func hitsSearcherIsOneIndexWithoutAMergedList() async {
        let t = FakeTransport()
        let h = HitsSearcher(transport: t, index: SearcherId(index: "movies"))
        let log = Log()
        h.onResults.subscribe(with: log) { l, r in l.events.append(r.query) }
        h.query = "dune"
        h.search()
        #expect(t.searches.first?.merge == ["strategy": "grouped"])
        t.answer(
            0,
            [
                .results(id: nil, index: "movies", results: results("movies", query: "dune", titles: ["Dune"])),
                .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        await settle()
        #expect(log.events == ["dune"])
    }

    @Test func facetSearcherAsksForFacetValuesUnderTheFilters() async throws {
        let t = FakeTransport()
        let f = FacetSearcher(transport: t, index: SearcherId(index: "products"), facetName: "supplier")
        let fs = FilterState()
        f.connectFilterState(fs)
        fs.add(.numeric(attribute: "price", op: .lessThan, value: 1000), toGroupWithID: .and("price"))
        f.query = "hew"
        f.search()
        let r = try #require(t.requests.last?.operation.facetValuesRequest, "no facet request")
        #expect(r.facetQuery == "hew" && r.facetName == "supplier")
        #expect(r.params.filters == "price < 1000")
        let log = Log()
        f.onResults.subscribe(with: log) { l, r in l.events += r.facetHits.map { "\($0.value) \($0.count)" } }
        t.answer(
            t.requests.count - 1,
            [
                .info(
                    id: nil, type: "facetHits",
                    payload: [
                        "facetHits": [["value": "Hewlett", "highlighted": "<em>Hew</em>lett", "count": 3]], "exhaustiveFacetsCount": true,
                    ])
            ])
        await settle()
        #expect(log.events == ["Hewlett 3"])
    }

    /// A facet's values are counted as if none of them were selected (its own `or` group is
    /// left out), and under the other filters the index can apply only; while no facet query
    /// is typed, a filter change asks nothing. A connected facet list shows what is found in
    /// place of its counts until the query is emptied.
    @Test func facetSearchIgnoresItsOwnRefinementsAndFeedsTheList() async throws {
        let t = FakeTransport()
        let f = FacetSearcher(transport: t, index: SearcherId(index: "products"), facetName: "supplier")
        f.filterableAttributes = ["supplier", "price"]
        let fs = FilterState()
        f.connectFilterState(fs)
        let list = FacetListInteractor()
        list.connectFacetSearcher(f)
        list.update([Facet(value: "HP", count: 285), Facet(value: "Hewlett", count: 3)])
        fs.add(.facet(attribute: "supplier", value: "HP"), toGroupWithID: .or("supplier"))
        fs.add(.facet(attribute: "genres", value: "Drama"), toGroupWithID: .and("genres"))
        #expect(t.requests.isEmpty, "no facet query typed: nothing asked")
        fs.add(.numeric(attribute: "price", op: .lessThan, value: 1000), toGroupWithID: .and("price"))
        f.query = "hew"
        f.search()
        let r = try #require(t.requests.last?.operation.facetValuesRequest, "no facet request")
        #expect(r.params.filters == "price < 1000", "neither its own refinement nor another index's attribute")
        t.answer(
            t.requests.count - 1,
            [
                .info(
                    id: nil, type: "facetHits",
                    payload: [
                        "facetHits": [["value": "Hewlett", "highlighted": "<em>Hew</em>lett", "count": 3]], "exhaustiveFacetsCount": true,
                    ])
            ])
        await settle()
        #expect(list.items.map(\.value) == ["Hewlett"])
        f.query = ""
        #expect(list.items.map(\.value) == ["HP", "Hewlett"], "the counted values again")
    }

    /// A facet merged across indices: the searcher asks for merged facets and each source for
    /// its own attribute (through the aliases); the values come from the merged frame, and a
    /// toggle filters every index that has the attribute. A merge strategy widget sets
    /// `merge.strategy` and searches again.
    @Test func mergedFacetsAndTheMergeStrategy() async throws {
        let t = FakeTransport()
        let fed = FederatedSearcher(transport: t, indices: [SearcherId(index: "products"), SearcherId(index: "phones")])
        fed.facetAliases = ["brand": ["products": "supplier"]]
        fed.sources[0].filterableAttributes = ["supplier"]
        fed.sources[1].filterableAttributes = ["brand"]
        let fs = FilterState()
        fed.connectFilterState(fs)
        let view = FakeFacetListController()
        let connector = MergedFacetListConnector(searcher: fed, filterState: fs, attribute: "brand", controller: view)
        #expect(fed.mergeFacets != nil)
        #expect(fed.sources[0].parameters.facets == ["supplier"] && fed.sources[1].parameters.facets == ["brand"])
        fed.search()
        t.answer(
            t.requests.count - 1,
            [
                .merged(
                    id: nil,
                    results: MergedResults(
                        hits: [], nbHits: 10,
                        extra: [
                            "facets": ["brand": ["values": ["HP": 6, "Apple": 4], "indices": ["products", "phones"]]]
                        ])), .done(id: nil, status: .ok, sources: [], ms: 1),
            ])
        await settle()
        #expect(view.shown == ["HP 6", "Apple 4"])
        view.click("HP")
        await settle()
        #expect(fs.filters.text() == "brand:HP")
        let refined = try #require(t.requests.last?.operation.searchRequest, "no search after the toggle")
        let filters = (refined.targets ?? []).map { $0.params?["filters"]?.stringValue ?? "" }
        #expect(filters == ["supplier:HP", "brand:HP"], "each index filtered on its own attribute: \(filters)")
        _ = connector
        let strategy = FakeMergeStrategyController()
        let sort = MergeStrategyConnector(searcher: fed, controller: strategy)
        #expect(strategy.selected == "score" && strategy.items.count == 4)
        let before = t.requests.count
        strategy.onSelect?("rrf")
        let r = try #require(t.requests.last?.operation.searchRequest, "no search")
        #expect(t.requests.count == before + 1 && r.merge?["strategy"] == "rrf")
        #expect(strategy.selected == "rrf" && sort.interactor.item == "rrf")
    }
}

@MainActor
final class FakeMergeStrategyController: MergeStrategyController {
    var items: [MergeStrategyInteractor.Item] = []
    var selected = ""
    var onSelect: ((String) -> Void)?
    func setItems(_ items: [MergeStrategyInteractor.Item], selected: String) {
        self.items = items
        self.selected = selected
    }
}
