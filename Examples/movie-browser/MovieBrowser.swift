import FederatedSearchClient
import FederatedSearchCore
import Foundation
import InstantSearch
import InstantSearchTerminal

/// `fedsearch-movies [--socket PATH]`: the whole small terminal app of docs/CLIENT.md. A search
/// box over the demo's movies, the hits as typed ``Movie`` records in a controller of its own
/// (``MovieListController``), the selected movie's cast below, the mouse, and `?` (F1 while
/// typing) for the keys. Tab moves between the box and the list; Ctrl-C (or q in the list) quits.
@main
struct MovieBrowser {
    @MainActor
    static func main() async {
        var socket = ProcessInfo.processInfo.environment["FEDSEARCH_SOCKET"] ?? "/tmp/fedsearchd/fedsearchd.sock"
        let args = CommandLine.arguments
        if let i = args.firstIndex(of: "--socket"), i + 1 < args.count { socket = args[i + 1] }
        let connection = DaemonConnection(path: socket)
        let searcher = HitsSearcher(transport: connection, index: SearcherId(index: "movies"))
        searcher.parameters.hitsPerPage = 30

        let box = SearchBoxInteractor()
        let boxView = TerminalSearchBoxController(placeholder: "type a title, an actor…")
        box.connectSearcher(searcher)
        box.connectController(boxView)

        let hits = HitsInteractor(infiniteScrolling: true)
        let list = MovieListController()
        hits.connectSearcher(searcher)
        hits.connectController(list)
        let movies = HitRecords<Movie>(hits)
        list.movies = movies

        let app = App(screen: Screen(), box: boxView, list: list)
        movies.onRecordsChanged.subscribe(with: app) { app, _ in app.render() }
        for pane in [boxView, list] as [any TerminalPane] { pane.onNeedsDisplay = { [weak app] in app?.render() } }
        searcher.search()
        await app.run()
        connection.close()
    }
}

/// The screen, the focus, the keys and the mouse.
@MainActor
final class App {
    let screen: Screen
    let box: TerminalSearchBoxController
    let list: MovieListController
    private var focus = 0
    private var helpShown = false
    private var quit = false
    private var listRect = Rect(y: 0, x: 0, height: 0, width: 0)

    init(screen: Screen, box: TerminalSearchBoxController, list: MovieListController) {
        self.screen = screen
        self.box = box
        self.list = list
    }

    private var focused: any TerminalPane { focus == 0 ? box : list }

    func run() async {
        render()
        for await _ in KeyboardInput.ticks() {
            while !quit, let key = screen.readKey() { handle(key) }
            if quit { break }
        }
        screen.close()
    }

    private func handle(_ key: Key) {
        if helpShown {
            helpShown = false
            quit = key == .control("c")
            return render()
        }
        switch key {
        case .control("c"): quit = true
        case .function(1): helpShown = true
        case .tab, .backTab: focus = 1 - focus
        case .mouse(let event):
            // A click or the wheel in the list focuses it; the wheel moves its cursor.
            guard event.y >= listRect.y, event.y < listRect.y + listRect.height else { return }
            focus = 1
            switch event.kind {
            case .click: _ = list.click(y: event.y)
            case .wheelUp: _ = list.handle(.up)
            case .wheelDown: _ = list.handle(.down)
            }
        default:
            if focused.handle(key) { return }
            if key == .character("?") { helpShown = true }
            if key == .character("q") { quit = true }
        }
        render()
    }

    func render() {
        let (rows, cols) = screen.size
        screen.begin()
        box.draw(on: screen, in: Rect(y: 0, x: 0, height: 3, width: cols), focused: focus == 0)
        listRect = Rect(y: 3, x: 0, height: max(0, rows - 6), width: cols)
        list.draw(on: screen, in: listRect, focused: focus == 1)
        let selected = list.selected
        let cast = (selected?.cast ?? []).prefix(4).joined(separator: ", ")
        screen.putRuns(
            [("selected: ", .bold), (selected?.heading ?? "none", .normal), (cast.isEmpty ? "" : " with " + cast, .dim)],
            y: rows - 3, x: 0, width: cols)
        let essential = focus == 0 ? [KeyHint("F1", "help"), KeyHint("^C", "quit")] : [KeyHint("?", "help"), KeyHint("q", "quit")]
        screen.putRuns(
            KeyHints.runs(focused.keyHints + [KeyHint("Tab", "switch")], essential: essential, width: cols),
            y: rows - 1, x: 0, width: cols)
        if helpShown {
            let lines = [
                "type        search the titles (in the box)", "Tab         the box or the list", "↑ ↓ PgUp PgDn  move in the list",
                "click, wheel  select, scroll the list", "? or F1     these keys", "q or ^C     quit",
            ]
            let rect = Rect(y: 4, x: 2, height: lines.count + 2, width: min(cols - 4, 50))
            for y in rect.y..<(rect.y + rect.height) {
                screen.put(String(repeating: " ", count: rect.width), y: y, x: rect.x, maxWidth: rect.width, style: .normal)
            }
            if let inner = screen.pane(rect, title: "Keys — any key closes", focused: true) {
                for (i, line) in lines.enumerated() { screen.put(line, y: inner.y + i, x: inner.x, maxWidth: inner.width, style: .normal) }
            }
        }
        screen.show()
    }
}
