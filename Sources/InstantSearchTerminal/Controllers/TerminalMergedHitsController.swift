import FederatedSearchProtocol
import InstantSearch

/// The built-in merged list in a terminal pane: each hit's line with the index it came from.
@MainActor
public final class TerminalMergedHitsController: MergedHitsController, TerminalPane {
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    public var labelAttributes: [String]
    private var hits: [MergedHit] = []
    private var nbHits = 0
    private var received = false
    private var cursor = ListCursor()

    public init(title: String = "Merged", labelAttributes: [String] = ["title", "name"]) {
        self.title = title
        self.labelAttributes = labelAttributes
    }

    public func setHits(_ hits: [MergedHit], nbHits: Int) {
        self.hits = hits
        self.nbHits = nbHits
        received = true
        cursor.reset()
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool {
        guard cursor.handle(key, count: hits.count, page: 10) else { return false }
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        canvas.put(received ? "\(hits.count) of \(nbHits) across indices" : "waiting…", y: inner.y, x: inner.x,
                   maxWidth: inner.width, style: .dim)
        let rows = inner.height - 1
        guard rows > 0, !hits.isEmpty else { return }
        let tagWidth = min(12, (hits.map { TextWidth.of($0.index) }.max() ?? 0) + 1)
        let first = cursor.firstVisible(visible: rows, count: hits.count)
        for row in 0..<min(rows, hits.count - first) {
            let i = first + row
            let m = hits[i]
            let y = inner.y + 1 + row
            let tag = TextWidth.fit(m.index, to: tagWidth)
            if focused, i == cursor.row {
                let plain = tag + HighlightedText.label(m.hit, attributes: labelAttributes).map(\.0).joined()
                canvas.put(TextWidth.fit(plain, to: inner.width), y: y, x: inner.x, maxWidth: inner.width, style: .selected)
            } else {
                canvas.putRuns([(tag, .dim)] + HighlightedText.label(m.hit, attributes: labelAttributes), y: y, x: inner.x,
                               width: inner.width)
            }
        }
    }
}
