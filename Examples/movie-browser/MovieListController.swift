import InstantSearch
import InstantSearchTerminal

/// A terminal controller of this app's own: the movies as typed records, one line each
/// (`Alien (1979)  Horror, Science Fiction`), a cursor moved by the arrows, the wheel or a click,
/// and the next page loaded as the cursor nears the end. It is a ``HitsController`` (the hits
/// interactor tells it to reload) and a ``TerminalPane`` (the app draws it and gives it keys).
@MainActor
final class MovieListController: HitsController, TerminalPane {
    var hitsSource: HitsInteractor?
    var onNeedsDisplay: (() -> Void)?
    let title = "Movies"
    var isFocusable: Bool { true }
    var keyHints: [KeyHint] { [KeyHint("↑↓", "move"), KeyHint("click", "select")] }
    /// The typed records of the hits (set by the app).
    var movies: HitRecords<Movie>?
    /// The movie under the cursor.
    var selected: Movie? {
        guard let records = movies?.records, !records.isEmpty else { return nil }
        return records[min(row, records.count - 1)]
    }
    private var row = 0
    private var top = 0
    private var firstLine = 0

    func reload() { onNeedsDisplay?() }

    func scrollToTop() { (row, top) = (0, 0) }

    func handle(_ key: Key) -> Bool {
        let count = movies?.records.count ?? 0
        switch key {
        case .up: row = max(0, row - 1)
        case .down: row = min(max(0, count - 1), row + 1)
        case .pageUp: row = max(0, row - 10)
        case .pageDown: row = min(max(0, count - 1), row + 10)
        default: return false
        }
        moved()
        return true
    }

    func click(y: Int) -> Bool {
        let i = top + (y - firstLine)
        guard y >= firstLine, let movies, movies.records.indices.contains(i) else { return false }
        row = i
        moved()
        return true
    }

    private func moved() {
        // Asking for the record near the end of those loaded loads the next page.
        _ = movies?.record(atIndex: row)
        onNeedsDisplay?()
    }

    func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        let records = movies?.records ?? []
        guard !records.isEmpty else {
            canvas.put("no movie", y: inner.y, x: inner.x, maxWidth: inner.width, style: .dim)
            return
        }
        row = min(row, records.count - 1)
        if row < top { top = row }
        if row >= top + inner.height { top = row - inner.height + 1 }
        firstLine = inner.y
        for (line, movie) in records[top...].prefix(inner.height).enumerated() {
            let genres = (movie.genres ?? []).joined(separator: ", ")
            let runs: [(String, Style)] = [(movie.heading, top + line == row ? .selected : .bold), ("  " + genres, .dim)]
            canvas.putRuns(runs, y: inner.y + line, x: inner.x, width: inner.width)
        }
    }
}
