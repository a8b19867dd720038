import FederatedSearchCore
import InstantSearch

/// The built-in list of one index's hits in a terminal pane: a line of stats and the source's
/// state, then one line per hit with the query's words highlighted; with the focus, the
/// arrows (or j/k) move a cursor, and the next page loads as it nears the end.
@MainActor
public final class TerminalHitsController: HitsController, StatsController, TerminalPane {
    public var hitsSource: HitsInteractor?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    /// The attributes tried, in order, for a hit's line.
    public var labelAttributes: [String]
    /// The source's state beside the stats (`ok 0.4 ms`, `timeout`), set by the dashboard.
    public var sourceState: (text: String, style: Style)? {
        didSet { onNeedsDisplay?() }
    }
    /// Shown when the answer has no hit.
    public var emptyText: (String) -> String
    private var stats: SearchStats?
    private var cursor = ListCursor()

    public init(title: String, labelAttributes: [String] = ["title", "name"], emptyText: ((String) -> String)? = nil) {
        self.title = title
        self.labelAttributes = labelAttributes
        self.emptyText = emptyText ?? { q in q.isEmpty ? "no results in \(title)" : "no results for '\(q)' in \(title)" }
    }

    public func reload() { onNeedsDisplay?() }

    public func scrollToTop() { cursor.reset() }

    public func setItem(_ stats: SearchStats?) {
        self.stats = stats
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool {
        guard cursor.handle(key, count: hitsSource?.numberOfHits ?? 0, page: 10) else { return false }
        _ = hitsSource?.hit(atIndex: cursor.row)  // near the end: loads the next page
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        var header: [(String, Style)] = [(stats?.text ?? "waiting…", .dim)]
        if let s = sourceState { header += [("  ", .normal), (s.text, s.style)] }
        canvas.putRuns(header, y: inner.y, x: inner.x, width: inner.width)
        guard let hits = hitsSource, inner.height > 1 else { return }
        let rows = inner.height - 1
        if hits.numberOfHits == 0 {
            if let stats { canvas.put(emptyText(stats.query), y: inner.y + 1, x: inner.x, maxWidth: inner.width, style: .dim) }
            return
        }
        let first = cursor.firstVisible(visible: rows, count: hits.numberOfHits)
        for row in 0..<min(rows, hits.numberOfHits - first) {
            let i = first + row
            let hit = hits.hits[i]
            let y = inner.y + 1 + row
            if focused, i == cursor.row {
                let plain = HighlightedText.label(hit, attributes: labelAttributes).map(\.0).joined()
                canvas.put(TextWidth.fit(plain, to: inner.width), y: y, x: inner.x, maxWidth: inner.width, style: .selected)
            } else {
                canvas.putRuns(HighlightedText.label(hit, attributes: labelAttributes), y: y, x: inner.x, width: inner.width)
            }
        }
    }
}
