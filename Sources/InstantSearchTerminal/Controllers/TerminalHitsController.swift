import FederatedSearchCore
import InstantSearch

/// The built-in list of one index's hits in a terminal pane: a line of stats and the source's
/// state, then each hit's label with the query's words highlighted and, under it, why it
/// matched (``HighlightedText/detail(_:labelAttributes:among:)``); with the focus, the arrows
/// (or j/k) move a cursor, and the next page loads as it nears the end.
@MainActor
public final class TerminalHitsController: HitsController, StatsController, TerminalPane {
    public var hitsSource: HitsInteractor?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    public var keyHints: [KeyHint] { [KeyHint("↑↓", "move"), KeyHint("PgDn", "page")] }
    /// The attributes tried, in order, for a hit's line.
    public var labelAttributes: [String]
    /// Whether each hit has a second line saying why it matched.
    public var showsDetail = true
    /// The attributes that line is chosen from (the best-matching one; nil: any but the label's).
    public var detailAttributes: [String]?
    /// The source's state beside the stats (`ok 0.4 ms`, `timeout`), set by the dashboard.
    public var sourceState: (text: String, style: Style)? {
        didSet { onNeedsDisplay?() }
    }
    /// Why the hits shown no longer answer the query (`daemon unreachable`): they are drawn
    /// dimmed, under this word in place of the source's state. Nil: they are current.
    public var staleReason: String? {
        didSet { if staleReason != oldValue { onNeedsDisplay?() } }
    }
    /// Hits just brought or changed by a live update (by `objectID`): marked `+` while set.
    public var freshObjectIDs: Set<String> = [] {
        didSet { if freshObjectIDs != oldValue { onNeedsDisplay?() } }
    }
    /// Shown when the answer has no hit.
    public var emptyText: (String) -> String
    private var stats: SearchStats?
    private var cursor = ListCursor()
    /// The first hit shown at the last draw, and the screen line it is on (for clicks).
    private var shownFirst: (first: Int, top: Int)?
    /// Lines each hit took at the last draw.
    private var linesPerHit = 1

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

    /// A click on screen line `y`: the hit shown there gets the cursor; false when none is.
    public func click(y: Int) -> Bool {
        guard let (first, top) = shownFirst, y >= top else { return false }
        let row = (y - top) / linesPerHit
        guard let hits = hitsSource, hits.hits.indices.contains(first + row) else { return false }
        cursor.select(first + row, count: hits.numberOfHits)
        _ = hits.hit(atIndex: cursor.row)
        onNeedsDisplay?()
        return true
    }

    /// The header: the count and the source's state, as much of them as `width` takes (the
    /// time is kept longest: `482 results  ok 0.3 ms`, `482  ok 0.3 ms`, `482 0.3 ms`).
    func header(width: Int) -> [(String, Style)] {
        guard let stats else { return [("waiting…", .dim)] }
        let count = (stats.exhaustiveNbHits ? "" : "~") + DisplayFormat.count(stats.nbHits)
        let words = count + " result" + (stats.nbHits == 1 ? "" : "s")
        let state: (text: String, style: Style) =
            staleReason.map { _ in ("stale", .error) }
            ?? sourceState ?? ("\(DisplayFormat.milliseconds(stats.processingTimeMS)) ms", .dim)
        let short = state.text.hasPrefix("ok ") ? String(state.text.dropFirst(3)) : state.text
        for (a, b) in [(words, state.text), (count, state.text), (count, short)] where TextWidth.of(a) + 2 + TextWidth.of(b) <= width {
            return [(a, .dim), ("  ", .normal), (b, state.style)]
        }
        return [(count, .dim), (" ", .normal), (short, state.style)]
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        shownFirst = nil
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        canvas.putRuns(header(width: inner.width), y: inner.y, x: inner.x, width: inner.width)
        guard let hits = hitsSource, inner.height > 1 else { return }
        // A hit per line when its detail would leave fewer than 4 in view.
        linesPerHit = showsDetail && inner.height - 1 >= 8 ? 2 : 1
        let rows = (inner.height - 1) / linesPerHit
        if hits.numberOfHits == 0 {
            if let stats { canvas.put(emptyText(stats.query), y: inner.y + 1, x: inner.x, maxWidth: inner.width, style: .dim) }
            return
        }
        let first = cursor.firstVisible(visible: rows, count: hits.numberOfHits)
        shownFirst = (first, inner.y + 1)
        for row in 0..<min(rows, hits.numberOfHits - first) {
            let i = first + row
            let hit = hits.hits[i]
            let y = inner.y + 1 + row * linesPerHit
            let label = HighlightedText.label(hit, attributes: labelAttributes)
            if focused, i == cursor.row {
                canvas.put(
                    TextWidth.fit(label.map(\.0).joined(), to: inner.width), y: y, x: inner.x, maxWidth: inner.width, style: .selected)
            } else if staleReason != nil {
                canvas.putRuns(label.map { ($0.0, Style.dim) }, y: y, x: inner.x, width: inner.width)
            } else if freshObjectIDs.contains(hit.objectID) {
                canvas.putRuns([("+ ", .ok)] + label, y: y, x: inner.x, width: inner.width)
            } else {
                canvas.putRuns(label, y: y, x: inner.x, width: inner.width)
            }
            if linesPerHit == 2,
                let detail = HighlightedText.detail(
                    hit, labelAttributes: labelAttributes, among: detailAttributes, lead: max(4, inner.width / 4))
            {
                // Dimmed, its matches still marked.
                let runs = detail.map { ($0.0, $0.1 == .highlight && staleReason == nil ? Style.highlight : Style.dim) }
                canvas.putRuns([("  ", .dim)] + runs, y: y + 1, x: inner.x, width: inner.width)
            }
        }
        let total = max(hits.numberOfHits, stats?.nbHits ?? 0)
        if let note = cursor.position(first: first, visible: rows, count: total, focused: focused) {
            canvas.boxNote(rect, note, focused: focused)
        }
    }
}
