import CustomSearchBox
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch
import InstantSearchTerminal
import SearchCounter

/// `fedsearch dashboard`: a live multi-index search screen, built only from the public API of
/// the InstantSearch library and its terminal controllers (it is their first user).
///
/// One ``FederatedSearcher`` over the indices; a search box (the built-in one customised by
/// composition) that searches as you type; per index a Hits interactor and a Stats interactor
/// feeding one terminal column; the merged list; a FacetList per facet, all refining one
/// ``FilterState`` (each index is sent only the filters on its own attributes); the current
/// filters, a clear interactor on Esc, each source's status, and the search counter widget of
/// `Examples/SearchCounter`.
@MainActor
final class Dashboard {
    /// One index's column.
    struct Column {
        let name: String
        let hits: HitsInteractor
        let stats: StatsInteractor
        let view: TerminalHitsController
    }

    /// One facet panel.
    struct FacetPanel {
        let attribute: String
        let list: FacetListInteractor
        let view: TerminalFacetListController
    }

    let searcher: FederatedSearcher
    let filterState = FilterState()
    let searchBox = SearchBoxInteractor()
    let searchBoxView = NormalizingSearchBoxController()
    private(set) var columns: [Column] = []
    let merged = MergedHitsInteractor()
    let mergedView = TerminalMergedHitsController(title: "Merged")
    private(set) var facets: [FacetPanel] = []
    let currentFilters = CurrentFiltersInteractor()
    let currentFiltersView = TerminalCurrentFiltersController()
    let clear = FilterClearInteractor()
    let status = SourceStatusInteractor()
    let statusView = TerminalSourceStatusController()
    let counter = SearchCounterInteractor()
    let counterView = TerminalSearchCounterController()

    /// The panes Tab stops on: the search box, then the facets, the columns, the merged list.
    private var focusables: [any TerminalPane] = []
    private var focus = 0
    private var renderScheduled = false
    private var quit = false
    private let screen: Screen

    /// The panes of `indices` (with their facet attributes, from the daemon's `indices`) and
    /// of `facetNames`.
    init(connection: DaemonConnection, indices: [IndexInfo], facetNames: [String], hitsPerPage: Int) {
        searcher = FederatedSearcher(transport: connection, indices: indices.map { SearcherId(index: $0.name) })
        screen = Screen()
        for (source, info) in zip(searcher.sources, indices) {
            source.parameters.hitsPerPage = hitsPerPage
            source.filterableAttributes = info.filterable
        }
        searcher.parameters.hitsPerPage = hitsPerPage

        searchBox.connectSearcher(searcher)
        searchBox.connectController(searchBoxView)
        searcher.connectFilterState(filterState)
        for source in searcher.sources {
            let view = TerminalHitsController(title: source.name)
            let hits = HitsInteractor(infiniteScrolling: true)
            hits.connectSearcher(source)
            hits.connectController(view)
            let stats = StatsInteractor()
            stats.connectSearcher(source)
            stats.connectController(view)
            columns.append(Column(name: source.name, hits: hits, stats: stats, view: view))
        }
        merged.connectSearcher(searcher)
        merged.connectController(mergedView)
        for attribute in facetNames {
            let owners = indices.filter { $0.facets.contains(attribute) }.map(\.name)
            guard let first = owners.first, let source = searcher.source(first) else { continue }
            let list = FacetListInteractor(selectionMode: .multiple)
            let view = TerminalFacetListController(title: "\(attribute) (\(owners.joined(separator: ", ")))")
            list.connectSearcher(source, attribute: attribute)
            list.connectFilterState(filterState, attribute: attribute, operator: .or)
            list.connectController(view)
            facets.append(FacetPanel(attribute: attribute, list: list, view: view))
        }
        currentFilters.connectFilterState(filterState)
        currentFilters.connectController(currentFiltersView)
        clear.connectFilterState(filterState)
        status.connectSearcher(searcher)
        status.connectController(statusView)
        counter.connectSearcher(searcher)
        counter.connectController(counterView)
        status.onItemChanged.subscribe(with: self) { dashboard, _ in
            for c in dashboard.columns { c.view.sourceState = dashboard.statusView.sourceState(c.name) }
        }

        focusables = [searchBoxView] + facets.map(\.view) + columns.map(\.view) + (columns.count > 1 ? [mergedView] : [])
        let panes: [any TerminalPane] = focusables + [currentFiltersView, statusView, counterView]
        for pane in panes { pane.onNeedsDisplay = { [weak self] in self?.scheduleRender() } }
    }

    /// Runs until the user quits; gives the terminal back.
    func run() async {
        searcher.search()  // the empty query: every column shows its first hits at once
        render()
        for await _ in KeyboardInput.ticks() {
            while let key = screen.readKey() {
                handle(key)
                if quit { break }
            }
            if quit { break }
        }
        searcher.cancel()
        screen.close()
    }

    private func handle(_ key: Key) {
        switch key {
        case .control("c"):
            quit = true
        case .tab, .backTab:
            focus = (focus + (key == .tab ? 1 : focusables.count - 1)) % focusables.count
            render()
        case .escape:
            clear.trigger()
        case .resize:
            render()
        default:
            if focusables[focus].handle(key) { return }
            if counterView.handle(key) { return }
            switch key {
            case .character("q"): quit = true
            case .character("/"):
                focus = 0
                render()
            default: break
            }
        }
    }

    private func scheduleRender() {
        guard !renderScheduled else { return }
        renderScheduled = true
        Task { @MainActor [weak self] in
            self?.renderScheduled = false
            self?.render()
        }
    }

    private func render() {
        let (rows, cols) = screen.size
        let main: [any TerminalPane] = columns.map(\.view) + (columns.count > 1 ? [mergedView] : [])
        let content: [any TerminalPane] = facets.map(\.view) + main
        let focusedContent = focus > 0 ? focus - 1 : nil
        let shown = focusedContent ?? facets.count  // what a narrow layout shows with the search box focused
        let layout = DashboardLayout.compute(
            rows: rows, cols: cols, facetPanes: facets.count, mainPanes: main.count, focusedContent: shown)
        screen.begin()
        searchBoxView.draw(on: screen, in: layout.search, focused: focus == 0)
        for (pane, rect) in zip(content, layout.content) {
            guard let rect else { continue }
            pane.draw(on: screen, in: rect, focused: focusables[focus] === pane)
        }
        currentFiltersView.draw(on: screen, in: layout.filters, focused: false)
        statusView.draw(on: screen, in: layout.status, focused: false)
        drawFooter(layout.footer, narrow: layout.isNarrow, shown: shown, total: content.count)
        screen.show()
    }

    private func drawFooter(_ rect: Rect, narrow: Bool, shown: Int, total: Int) {
        guard rect.height > 0 else { return }
        let counterWidth = 34
        var keys: [(String, Style)] = []
        if narrow {
            keys.append(("pane \(shown + 1)/\(total) ", .bold))
        }
        for (k, what) in [("Tab", "pane"), ("Space", "toggle"), ("Esc", "clear filters"), ("↑↓", "move"),
                          ("^U", "clear query"), ("q", "quit")] {
            keys += [(k, .bold), (" \(what)  ", .dim)]
        }
        screen.putRuns(keys, y: rect.y, x: rect.x, width: max(0, rect.width - counterWidth - 1))
        if rect.width > counterWidth + 10 {
            counterView.draw(on: screen, in: Rect(y: rect.y, x: rect.width - counterWidth, height: 1, width: counterWidth),
                             focused: false)
        }
    }
}

/// What the dashboard needs to know of one index (from the daemon's `indices` answer).
struct IndexInfo {
    let name: String
    /// The attributes it counts facets on (not `filterOnly`), in config order.
    let facets: [String]
    /// Every attribute it can filter on.
    let filterable: Set<String>

    init(name: String, attributesForFaceting: [String]) {
        self.name = name
        var facets: [String] = []
        var filterable = Set<String>()
        for a in attributesForFaceting {
            for prefix in ["filterOnly(", "searchable(", "afterDistinct("] where a.hasPrefix(prefix) && a.hasSuffix(")") {
                let inner = String(a.dropFirst(prefix.count).dropLast())
                filterable.insert(inner)
                if prefix != "filterOnly(" { facets.append(inner) }
            }
            if !a.hasSuffix(")") {
                facets.append(a)
                filterable.insert(a)
            }
        }
        self.facets = facets
        self.filterable = filterable
    }
}
