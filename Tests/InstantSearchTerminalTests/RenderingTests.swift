import Testing
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch
@testable import InstantSearchTerminal

/// The terminal controllers drawn into a text canvas (no terminal):
/// 1. widths are in cells: wide (CJK) characters take two, combining marks none, and
///    truncation never splits a character or passes the width;
/// 2. highlighted matches come out as highlighted runs;
/// 3. the panes draw what their interactors hold (hits, facets with selections, status);
/// 4. the dashboard layout fits every size, wide and narrow.
@MainActor
struct RenderingTests {
    @Test func widthsAreInCells() {
        #expect(TextWidth.of("abc") == 3)
        #expect(TextWidth.of("千と千尋") == 8)
        #expect(TextWidth.of("e\u{301}") == 1, "a combining accent takes no cell")
        #expect(TextWidth.truncate("千と千尋の神隠し", to: 7) == "千と千…")
        #expect(TextWidth.of(TextWidth.truncate("千と千尋の神隠し", to: 6)) <= 6)
        #expect(TextWidth.fit("Amélie", to: 8) == "Amélie  ")
        #expect(TextWidth.truncate("short", to: 10) == "short")
    }

    @Test func highlightTagsBecomeRuns() {
        let runs = HighlightedText.runs("<em>Star</em> <em>Wars</em>: A New Hope")
        #expect(runs.map(\.0) == ["Star", " ", "Wars", ": A New Hope"])
        #expect(runs.map(\.1) == [.highlight, .normal, .highlight, .normal])
        let hit = Hit(
            objectID: "1", attributes: ["title": "Star Wars"],
            highlightResult: ["title": ["value": "<em>Star</em> Wars", "matchLevel": "partial"]], rankingScore: 1)
        #expect(HighlightedText.label(hit).map(\.0).joined() == "Star Wars")
    }

    @Test func aHitsColumnDrawsStatsAndHighlightedHits() {
        let hits = HitsInteractor()
        let view = TerminalHitsController(title: "movies")
        hits.connectController(view)
        let r = SearchResults(
            hits: [
                Hit(
                    objectID: "1", attributes: ["title": "Star Wars"], highlightResult: ["title": ["value": "<em>Star</em> Wars"]],
                    rankingScore: 1),
                Hit(objectID: "2", attributes: ["title": "千と千尋の神隠し"], rankingScore: 0.5),
            ],
            nbHits: 2, page: 0, nbPages: 1, hitsPerPage: 20, processingTimeMS: 0.42, query: "star", index: "movies")
        hits.update(r)
        view.setItem(SearchStats(r))
        view.sourceState = ("ok 0.4 ms", .ok)
        let canvas = TextCanvas(rows: 6, cols: 30)
        view.draw(on: canvas, in: Rect(y: 0, x: 0, height: 6, width: 30), focused: false)
        #expect(canvas.line(0).hasPrefix("┌─ movies ─"))
        #expect(canvas.line(1) == "│2 results  ok 0.4 ms        │", "the count and the source's state and time")
        // Narrower, the header keeps the time: the word goes first, then "ok".
        let narrow = TextCanvas(rows: 3, cols: 14)
        view.draw(on: narrow, in: Rect(y: 0, x: 0, height: 3, width: 14), focused: false)
        #expect(narrow.line(1) == "│2  ok 0.4 ms│")
        let narrower = TextCanvas(rows: 3, cols: 12)
        view.draw(on: narrower, in: Rect(y: 0, x: 0, height: 3, width: 12), focused: false)
        #expect(narrower.line(1) == "│2  0.4 ms │")
        view.staleReason = "daemon unreachable"
        let stale = TextCanvas(rows: 4, cols: 30)
        view.draw(on: stale, in: Rect(y: 0, x: 0, height: 4, width: 30), focused: false)
        #expect(stale.line(1) == "│2 results  stale            │")
        #expect(stale.style(y: 2, x: 1) == .dim, "stale hits are dimmed")
        view.staleReason = nil
        #expect(canvas.line(2) == "│Star Wars                   │")
        #expect(canvas.style(y: 2, x: 1) == .highlight && canvas.style(y: 2, x: 6) == .normal)
        #expect(canvas.line(3).hasPrefix("│千と千尋の神隠し"))
        #expect(canvas.line(5).hasPrefix("└"))

        let empty = SearchResults(query: "zzz", index: "movies")
        hits.update(empty)
        view.setItem(SearchStats(empty))
        let c2 = TextCanvas(rows: 4, cols: 40)
        view.draw(on: c2, in: Rect(y: 0, x: 0, height: 4, width: 40), focused: false)
        #expect(c2.line(2).contains("no results for 'zzz' in movies"))
    }

    @Test func aFacetPaneShowsSelectionsAndToggles() {
        let list = FacetListInteractor()
        let view = TerminalFacetListController(title: "genres")
        list.connectController(view)
        list.update([Facet(value: "Drama", count: 166), Facet(value: "Comedy", count: 148)])
        _ = view.handle(.down)
        _ = view.handle(.character(" "))
        #expect(list.selections == ["Comedy"])
        let canvas = TextCanvas(rows: 4, cols: 20)
        view.draw(on: canvas, in: Rect(y: 0, x: 0, height: 4, width: 20), focused: true)
        #expect(canvas.line(1) == "│[x] Comedy     148│")
        #expect(canvas.line(2) == "│[ ] Drama      166│")
        #expect(canvas.style(y: 1, x: 1) == .selected, "the cursor stays on Comedy when it moves up the list")
    }

    @Test func theStatusLineSaysWhatEachSourceDidAndWhenTheDaemonIsGone() {
        let view = TerminalSourceStatusController()
        var state = SourceStatusInteractor.State()
        state.last = FederatedSearcher.Status(
            seq: 1, query: "x", status: .partial,
            sources: [
                SourceStatusItem(name: "movies", report: SourceReport(status: .ok, ms: 0.41)),
                SourceStatusItem(name: "slow", report: SourceReport(status: .timeout, ms: 500, errorCode: .timeout)),
            ],
            ms: 500.2)
        view.setItem(state)
        let canvas = TextCanvas(rows: 1, cols: 80)
        view.draw(on: canvas, in: Rect(y: 0, x: 0, height: 1, width: 80), focused: false)
        #expect(canvas.line(0).hasPrefix("movies ok 0.4 ms · slow timeout after 500 ms  total 500.2 ms"))
        state.connection = .disconnected(reason: "cannot connect to /tmp/x.sock", retryInMs: 400)
        view.setItem(state)
        let c2 = TextCanvas(rows: 1, cols: 120)
        view.draw(on: c2, in: Rect(y: 0, x: 0, height: 1, width: 120), focused: false)
        #expect(
            c2.line(0).hasPrefix(
                "stale: daemon unreachable, retrying in 400 ms — is fedsearchd running? (`make run` starts the demo) — cannot connect"))
    }

    /// The line under a hit says why it matched: the best-matching attribute other than the
    /// label's (a full match over a partial one), an array's matched elements, from a little
    /// before the first match; `among` picks the attributes (the first one as it is when none
    /// matched).
    @Test func theDetailLineSaysWhyAHitMatched() {
        let hit = Hit(
            objectID: "1", attributes: ["title": "Julius Caesar", "genres": ["Drama", "History"]],
            highlightResult: [
                "title": ["value": "Julius Caesar", "matchLevel": "none", "matchedWords": []],
                "cast": [
                    ["value": "Harold <em>Star</em>k", "matchLevel": "partial", "matchedWords": ["star"]],
                    ["value": "Charlton Heston", "matchLevel": "none", "matchedWords": []],
                ],
                "extract": [
                    "value": "Julius Caesar is a 1950 film adaptation of the play; it <em>wa</em>s a <em>star</em> turn",
                    "matchLevel": "full",
                    "matchedWords": ["star", "wa"],
                ],
            ], rankingScore: 1)
        let best = HighlightedText.detail(hit)
        #expect(best?.map(\.0).joined() == "…of the play; it was a star turn", "from a word about 24 characters before the first match")
        #expect(best?.first { $0.0 == "wa" }?.1 == .highlight)
        #expect(HighlightedText.detail(hit, among: ["cast"])?.map(\.0).joined() == "Harold Stark", "an array's matched elements")
        #expect(
            HighlightedText.detail(hit, among: ["genres"])?.map(\.0).joined() == "Drama, History", "unmatched: the first asked, as it is")
        let none = Hit(
            objectID: "2", attributes: [:], highlightResult: ["title": ["value": "X", "matchLevel": "none", "matchedWords": []]],
            rankingScore: 1)
        #expect(HighlightedText.detail(none) == nil)
    }

    /// Text cut to fit ends with "…", also where the cut falls at the end of a highlight.
    @Test func textCutOnAHighlightEndsWithAnEllipsis() {
        let canvas = TextCanvas(rows: 1, cols: 20)
        canvas.putRuns([("Star ", .normal), ("Wars", .highlight), (" and more", .normal)], y: 0, x: 0, width: 9)
        #expect(canvas.line(0).hasPrefix("Star War… "))
        #expect(canvas.style(y: 0, x: 8) == .highlight)
        let fits = TextCanvas(rows: 1, cols: 20)
        #expect(fits.putRuns([("Star ", .normal), ("Wars", .highlight)], y: 0, x: 0, width: 9) == 9)
        #expect(fits.line(0).hasPrefix("Star Wars "))
    }

    /// The footer keeps how to quit and how to get help at any width; other keys as they fit.
    @Test func keyHintsKeepTheEssentialOnes() {
        let hints = [KeyHint("↑↓", "move"), KeyHint("Space", "toggle"), KeyHint("Tab", "next pane"), KeyHint("Esc", "clear filters")]
        let essential = [KeyHint("?", "help"), KeyHint("q", "quit")]
        for width in [20, 40, 60, 80, 200] {
            let text = KeyHints.runs(hints, essential: essential, width: width).map(\.0).joined()
            #expect(text.contains("? help") && text.contains("q quit"), "\(width): \(text)")
            #expect(width < 20 || TextWidth.of(text) <= max(width, 16), "\(width): \(text)")
        }
        #expect(KeyHints.runs(hints, essential: essential, width: 40).map(\.0).joined() == "↑↓ move  Space toggle  ? help  q quit  ")
    }

    /// A list longer than its pane says where it is and whether more is above or below.
    @Test func aListSaysItsPosition() {
        var cursor = ListCursor()
        #expect(cursor.position(first: 0, visible: 10, count: 8, focused: true) == nil, "a list that fits says nothing")
        #expect(cursor.position(first: 0, visible: 10, count: 48, focused: true) == "1/48 ↓")
        cursor.move(20, count: 48)
        let first = cursor.firstVisible(visible: 10, count: 48)
        #expect(cursor.position(first: first, visible: 10, count: 48, focused: true) == "↑ 21/48 ↓")
        #expect(cursor.position(first: 38, visible: 10, count: 2000, focused: false) == "↑ 39/2,000 ↓")
    }

    @Test func theLayoutFitsEverySize() {
        for cols in [20, 40, 69, 89, 90, 120, 200] {
            for rows in [5, 10, 24, 50] {
                let l = DashboardLayout.compute(rows: rows, cols: cols, facetPanes: 2, mainPanes: 3, focusedContent: 3)
                let rects = [l.search, l.tabs, l.filters, l.status, l.footer] + l.content.compactMap { $0 }
                for r in rects where r.height > 0 {
                    #expect(r.x >= 0 && r.x + r.width <= cols && r.y >= 0 && r.y + r.height <= rows, "\(cols)x\(rows): \(r)")
                }
                #expect(l.isNarrow == (cols < DashboardLayout.wideColumns))
                if l.isNarrow {
                    #expect(l.content.compactMap { $0 }.count == 1 && l.content[3] != nil, "narrow: the focused pane only")
                    if rows >= 10 { #expect(l.tabs.height == 1 && l.content[3]!.y == l.tabs.y + 1, "narrow: the tabs above the pane") }
                } else {
                    #expect(l.content.allSatisfy { $0 != nil })
                    let widths = l.content.compactMap { $0 }.filter { $0.x > 0 }.reduce(0) { $0 + $1.width }
                    #expect(widths + l.content[0]!.width == cols, "the columns fill the width")
                }
            }
        }
    }
}
