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
///
/// Live (`^L`, and for the empty query from the start): the search stays subscribed, so each
/// write that changes what the panes show redraws them without a keystroke, the hits it
/// brought marked `+` for a moment.
@MainActor
final class Dashboard {
    /// One index's column.
    struct Column {
        let name: String
        let hits: HitsInteractor
        let stats: StatsInteractor
        let view: TerminalHitsController
    }

    /// One facet panel, and the search of its values (`/` in the pane).
    struct FacetPanel {
        let attribute: String
        let list: FacetListInteractor
        let view: TerminalFacetListController
        let search: FacetSearcher
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
    /// Their names, for the narrow layout's tabs.
    private var paneNames: [String] = []
    private var focus = 0
    private var renderScheduled = false
    private var quit = false
    /// Whether the help overlay is shown (any key closes it).
    private var helpShown = false
    private let screen: Screen
    /// How long a hit brought by a live update stays marked.
    static let freshFor: Duration = .seconds(4)
    /// Per pane (a source's name, or nil for the merged list), the live update whose marks
    /// it shows: a later one's marks replace them, and clearing them clears only their own.
    private var freshMarks: [String?: Int] = [:]
    /// Numbers the live updates marked, never reused.
    private var marksMade = 0
    /// `--trace`: keystroke-to-screen times.
    var trace: KeystrokeTrace? {
        didSet {
            searchBox.onQueryChanged.subscribe(with: self) { dashboard, query in
                dashboard.trace?.queryChanged(query ?? "", indices: dashboard.columns.map(\.name))
            }
        }
    }

    /// The panes of `indices` (with their facet attributes, from the daemon's `indices`) and
    /// of `facetNames`, drawn on `screen`; `socketPath` is named when the daemon cannot be reached.
    init(
        connection: DaemonConnection, indices: [IndexInfo], facetNames: [String], hitsPerPage: Int, screen: Screen,
        socketPath: String, live: FederatedSearcher.LiveMode = .emptyQuery
    ) {
        searcher = FederatedSearcher(transport: connection, indices: indices.map { SearcherId(index: $0.name) })
        searcher.liveMode = live
        self.screen = screen
        statusView.unreachableHint = "is fedsearchd running on \(socketPath)? (`make run` starts the demo)"
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
            let search = FacetSearcher(transport: connection, index: SearcherId(index: first), facetName: attribute)
            search.filterableAttributes = indices.first { $0.name == first }?.filterable
            search.connectFilterState(filterState)
            list.connectFacetSearcher(search)
            view.onSearchChanged = { [weak self, weak search] text in
                guard let search else { return }
                search.searchQuery = self?.searcher.query ?? ""
                search.query = text
                if let text, !text.isEmpty { search.search() }
            }
            facets.append(FacetPanel(attribute: attribute, list: list, view: view, search: search))
        }
        currentFilters.connectFilterState(filterState)
        currentFilters.connectController(currentFiltersView)
        clear.connectFilterState(filterState)
        status.connectSearcher(searcher)
        status.connectController(statusView)
        counter.connectSearcher(searcher)
        counter.connectController(counterView)
        status.onItemChanged.subscribe(with: self) { dashboard, state in dashboard.statusChanged(state) }
        searcher.onLiveUpdate.subscribe(with: self) { dashboard, update in dashboard.mark(update) }
        searcher.onSearch.subscribe(with: self) { dashboard, _ in dashboard.clearMarks() }
        searcher.onStatus.subscribe(with: self) { dashboard, _ in dashboard.scheduleRender() }

        focusables = [searchBoxView] + facets.map(\.view) + columns.map(\.view) + (columns.count > 1 ? [mergedView] : [])
        paneNames = ["search"] + facets.map(\.attribute) + columns.map(\.name) + (columns.count > 1 ? ["merged"] : [])
        let panes: [any TerminalPane] = focusables + [currentFiltersView, statusView, counterView]
        for pane in panes { pane.onNeedsDisplay = { [weak self] in self?.scheduleRender() } }
    }

    /// Runs until the user quits; gives the terminal back.
    func run() async {
        searcher.search()  // the empty query: every column shows its first hits at once
        render()
        for await _ in KeyboardInput.ticks() {
            while let key = screen.readKey() {
                trace?.keyWasRead()
                handle(key)
                if quit { break }
            }
            if quit { break }
        }
        searcher.cancel()
        screen.close()
    }

    /// The columns' state follows the searcher's: while the daemon cannot be reached, what they
    /// show no longer answers the query, and says so until a search answers again.
    private func statusChanged(_ state: SourceStatusInteractor.State) {
        let stale: String? = if case .disconnected = state.connection { "daemon unreachable" } else { nil }
        for c in columns {
            c.view.sourceState = statusView.sourceState(c.name)
            if let stale { c.view.staleReason = stale } else if !state.isLoading, state.last != nil { c.view.staleReason = nil }
        }
        if let stale { mergedView.staleReason = stale } else if !state.isLoading, state.last != nil { mergedView.staleReason = nil }
    }

    /// Marks the hits a live update brought on its pane, for ``freshFor``.
    private func mark(_ update: FederatedSearcher.LiveUpdate) {
        marksMade += 1
        let generation = marksMade
        freshMarks[update.source] = generation
        setMarks(update.freshObjectIDs, on: update.source)
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.freshFor)
            guard let self, self.freshMarks[update.source] == generation else { return }
            self.freshMarks[update.source] = nil
            self.setMarks([], on: update.source)
        }
    }

    private func setMarks(_ ids: Set<String>, on source: String?) {
        if let source {
            columns.first { $0.name == source }?.view.freshObjectIDs = ids
        } else {
            mergedView.freshObjectIDs = ids
        }
    }

    /// A new search shows a new answer: nothing in it is fresh.
    private func clearMarks() {
        for source in freshMarks.keys { setMarks([], on: source) }
        freshMarks = [:]
    }

    /// `^L`: live on or off for what is shown (and the searches after it).
    private func toggleLive() {
        searcher.liveMode = searcher.isLive ? .off : .on
        render()
    }

    /// Whether the focused pane takes typing (the search box, a facet search): `q` and `?` are
    /// letters there.
    private var typing: Bool { focusables[focus].capturesTyping }

    private func handle(_ key: Key) {
        if helpShown {
            // Any key closes the overlay (Ctrl-C still quits).
            helpShown = false
            if key == .control("c") { quit = true }
            render()
            return
        }
        if key == .control("c") {
            quit = true
            return
        }
        if key == .control("l") {
            toggleLive()
            return
        }
        // A text field sees every key first (Esc ends a facet search before it clears filters).
        if typing, focusables[focus].handle(key) { return }
        switch key {
        case .mouse(let event):
            handleMouse(event)
        case .function(1):
            helpShown = true
            render()
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
            case .character("?"):
                helpShown = true
                render()
            case .character("/"):
                focus = 0
                render()
            default: break
            }
        }
    }

    /// Where each pane was drawn last, for the mouse.
    private var drawn: [(pane: any TerminalPane, rect: Rect)] = []

    /// A click focuses the pane under it and acts on the row there (selects a hit, toggles a
    /// facet value); the wheel focuses the pane under it and moves its cursor.
    private func handleMouse(_ event: MouseEvent) {
        guard
            let target = drawn.last(where: { d in
                event.y >= d.rect.y && event.y < d.rect.y + d.rect.height && event.x >= d.rect.x && event.x < d.rect.x + d.rect.width
            }), let index = focusables.firstIndex(where: { $0 === target.pane })
        else { return }
        focus = index
        switch event.kind {
        case .click: _ = target.pane.click(y: event.y)
        case .wheelUp: for _ in 0..<3 { _ = target.pane.handle(.up) }
        case .wheelDown: for _ in 0..<3 { _ = target.pane.handle(.down) }
        }
        render()
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
        drawn = [(searchBoxView, layout.search)]
        if layout.tabs.height > 0 { drawTabs(layout.tabs, shown: shown + 1) }
        for (pane, rect) in zip(content, layout.content) {
            guard let rect else { continue }
            pane.draw(on: screen, in: rect, focused: focusables[focus] === pane)
            drawn.append((pane, rect))
        }
        currentFiltersView.draw(on: screen, in: layout.filters, focused: false)
        statusView.draw(on: screen, in: layout.status, focused: false)
        drawFooter(layout.footer)
        if helpShown { drawHelp(rows: rows, cols: cols) }
        screen.show()
        if let trace {
            var shown: [String: String] = [:]
            for c in columns { if let q = c.stats.item?.query { shown[c.name] = q } }
            trace.refreshed(shownQueries: shown)
        }
    }

    /// The narrow layout's tabs: every pane by name (an index with its hit count, so a toggled
    /// facet shows its effect), the one shown highlighted, the focused one bold.
    private func drawTabs(_ rect: Rect, shown: Int) {
        var runs: [(String, Style)] = []
        for (i, name) in paneNames.enumerated() {
            if i > 0 { runs.append((" · ", .dim)) }
            var label = name
            if let column = columns.first(where: { $0.name == name }), let n = column.stats.item?.nbHits {
                label += " " + DisplayFormat.count(n)
            } else if name == "merged", merged.item != nil {
                label += " " + DisplayFormat.count(merged.nbHits)
            }
            runs.append((label, i == focus ? .selected : (i == shown ? .bold : .normal)))
        }
        screen.putRuns(runs, y: rect.y, x: rect.x, width: rect.width)
    }

    /// The keys the focused pane takes, then the dashboard's, as many as fit; how to get help
    /// and how to quit always (Ctrl-C and F1 while typing, where `q` and `?` are letters).
    private func drawFooter(_ rect: Rect) {
        guard rect.height > 0 else { return }
        let counterWidth = 34
        let showCounter = rect.width >= 110
        var hints = focusables[focus].keyHints
        if typing {
            hints += [KeyHint("^U", "clear query"), KeyHint("Tab", "next pane")]
            if focus == 0, !currentFiltersView.isEmpty { hints.append(KeyHint("Esc", "clear filters")) }
        } else {
            hints.append(KeyHint("Tab", "next pane"))
            if !currentFiltersView.isEmpty { hints.append(KeyHint("Esc", "clear filters")) }
            if !hints.contains(where: { $0.key == "/" }) { hints.append(KeyHint("/", "search box")) }
        }
        let essential = typing ? [KeyHint("F1", "help"), KeyHint("^C", "quit")] : [KeyHint("?", "help"), KeyHint("q", "quit")]
        hints.append(KeyHint("^L", searcher.isLive ? "stop live" : "go live"))
        // While the answer shown is live, a badge says so, before the keys.
        let badge: [(String, Style)] = searcher.isShowingLive ? [("● live", .ok), ("  ", .normal)] : []
        let badgeWidth = badge.reduce(0) { $0 + TextWidth.of($1.0) }
        let width = (showCounter ? rect.width - counterWidth - 1 : rect.width) - badgeWidth
        screen.putRuns(
            badge + KeyHints.runs(hints, essential: essential, width: width), y: rect.y, x: rect.x, width: width + badgeWidth)
        if showCounter {
            counterView.draw(
                on: screen, in: Rect(y: rect.y, x: rect.width - counterWidth, height: 1, width: counterWidth),
                focused: false)
        }
    }

    /// Every key, in a box over the middle of the screen.
    static let helpLines: [(String, String)] = [
        ("typing", "search as you type (in the search box)"),
        ("Backspace ^U ^W", "delete a character, the query, a word"),
        ("Tab  Shift-Tab", "next pane, previous pane"),
        ("/", "back to the search box (outside a facet pane)"),
        ("↑ ↓  j k", "move in a list"),
        ("PgUp PgDn Home End", "move by a page, to the ends (more hits load)"),
        ("Space  Enter", "toggle the facet value under the cursor"),
        ("/", "in a facet pane: search its values (Esc ends)"),
        ("mouse", "click a pane, a hit, a value; the wheel scrolls"),
        ("Esc", "clear every filter"),
        ("^R", "reset the search counter"),
        ("^L", "live on/off: writes show as they land, marked +"),
        ("?  F1", "this help (F1 in the search box)"),
        ("q  ^C", "quit (^C in the search box)"),
    ]

    private func drawHelp(rows: Int, cols: Int) {
        let width = min(cols, 72)
        let height = min(rows, Self.helpLines.count + 4)
        let rect = Rect(y: max(0, (rows - height) / 2), x: max(0, (cols - width) / 2), height: height, width: width)
        for y in rect.y..<(rect.y + rect.height) {
            screen.put(String(repeating: " ", count: rect.width), y: y, x: rect.x, maxWidth: rect.width, style: .normal)
        }
        guard let inner = screen.pane(rect, title: "Keys — any key closes", focused: true) else { return }
        for (i, (keys, what)) in Self.helpLines.enumerated() where i < inner.height {
            screen.putRuns([(TextWidth.fit(keys, to: 20), .bold), (what, .normal)], y: inner.y + i, x: inner.x, width: inner.width)
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
