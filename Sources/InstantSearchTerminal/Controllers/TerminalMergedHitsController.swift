import FederatedSearchProtocol
import InstantSearch

/// The built-in merged list in a terminal pane: each hit's line with the index it came from.
/// With the focus, the arrows move a cursor, and the next page of the merged list loads as it
/// nears the end.
@MainActor
public final class TerminalMergedHitsController: MergedHitsController, TerminalPane {
    public var hitsSource: MergedHitsInteractor?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    public var keyHints: [KeyHint] { [KeyHint("↑↓", "move"), KeyHint("PgDn", "page")] }
    public var labelAttributes: [String]
    /// Why the hits shown no longer answer the query: drawn dimmed (see
    /// ``TerminalHitsController/staleReason``).
    public var staleReason: String? {
        didSet { if staleReason != oldValue { onNeedsDisplay?() } }
    }
    /// Hits just brought or changed by a live update (by `objectID`): marked `+` while set.
    public var freshObjectIDs: Set<String> = [] {
        didSet { if freshObjectIDs != oldValue { onNeedsDisplay?() } }
    }
    private var hits: [MergedHit] = []
    private var nbHits = 0
    private var received = false
    private var cursor = ListCursor()
    private var shownFirst: (first: Int, top: Int)?

    public init(title: String = "Merged", labelAttributes: [String] = ["title", "name"]) {
        self.title = title
        self.labelAttributes = labelAttributes
    }

    public func setHits(_ hits: [MergedHit], nbHits: Int) {
        // A page joined to the list keeps the cursor; a new list starts at its top.
        let appended = hits.count > self.hits.count && zip(self.hits, hits).allSatisfy { $0.0 == $0.1 } && !self.hits.isEmpty
        self.hits = hits
        self.nbHits = nbHits
        received = true
        if !appended { cursor.reset() }
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool {
        guard cursor.handle(key, count: hits.count, page: 10) else { return false }
        _ = hitsSource?.hit(atIndex: cursor.row)  // near the end: loads the next page
        onNeedsDisplay?()
        return true
    }

    /// A click on screen line `y`: the hit shown there gets the cursor; false when none is.
    public func click(y: Int) -> Bool {
        guard let (first, top) = shownFirst, y >= top else { return false }
        let row = y - top
        guard hits.indices.contains(first + row) else { return false }
        cursor.select(first + row, count: hits.count)
        _ = hitsSource?.hit(atIndex: cursor.row)
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        shownFirst = nil
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        let header: [(String, Style)]
        if !received {
            header = [("waiting…", .dim)]
        } else if nbHits == 0 {
            header = [("no results in any index", .dim)]
        } else {
            header =
                [("\(DisplayFormat.count(nbHits)) result\(nbHits == 1 ? "" : "s") across indices", .dim)]
                + (staleReason != nil ? [("  ", .normal), ("stale", .error)] : [])
        }
        canvas.putRuns(header, y: inner.y, x: inner.x, width: inner.width)
        let rows = inner.height - 1
        guard rows > 0, !hits.isEmpty else { return }
        let tagWidth = min(12, (hits.map { TextWidth.of($0.index) }.max() ?? 0) + 1)
        let first = cursor.firstVisible(visible: rows, count: hits.count)
        shownFirst = (first, inner.y + 1)
        for row in 0..<min(rows, hits.count - first) {
            let i = first + row
            let m = hits[i]
            let y = inner.y + 1 + row
            let tag = TextWidth.fit(m.index, to: tagWidth)
            let label = HighlightedText.label(m.hit, attributes: labelAttributes)
            if focused, i == cursor.row {
                let plain = tag + label.map(\.0).joined()
                canvas.put(TextWidth.fit(plain, to: inner.width), y: y, x: inner.x, maxWidth: inner.width, style: .selected)
            } else {
                let runs = staleReason != nil ? label.map { ($0.0, Style.dim) } : label
                let mark: [(String, Style)] = staleReason == nil && freshObjectIDs.contains(m.hit.objectID) ? [("+ ", .ok)] : []
                canvas.putRuns([(tag, .dim)] + mark + runs, y: y, x: inner.x, width: inner.width)
            }
        }
        if let note = cursor.position(first: first, visible: rows, count: max(hits.count, nbHits), focused: focused) {
            canvas.boxNote(rect, note, focused: focused)
        }
    }
}
