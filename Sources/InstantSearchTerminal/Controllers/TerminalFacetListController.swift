import InstantSearch

/// The built-in refinement list in a terminal pane: `[x] value  count` lines; with the focus,
/// the arrows move the cursor and Space (or Enter) toggles the value under it.
@MainActor
public final class TerminalFacetListController: FacetListController, TerminalPane {
    public var onClick: ((Facet) -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    private var items: [(item: Facet, isSelected: Bool)] = []
    private var cursor = ListCursor()

    public init(title: String) { self.title = title }

    public func setSelectableItems(_ items: [(item: Facet, isSelected: Bool)]) {
        // The cursor stays on its value when the list reorders.
        let current = self.items.indices.contains(cursor.row) ? self.items[cursor.row].item.value : nil
        self.items = items
        if let current, let i = items.firstIndex(where: { $0.item.value == current }) {
            cursor.move(i - cursor.row, count: items.count)
        }
    }

    public func reload() { onNeedsDisplay?() }

    public func handle(_ key: Key) -> Bool {
        if key == .character(" ") || key == .enter {
            guard items.indices.contains(cursor.row) else { return false }
            onClick?(items[cursor.row].item)
            return true
        }
        guard cursor.handle(key, count: items.count, page: 5) else { return false }
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        if items.isEmpty {
            canvas.put("no values", y: inner.y, x: inner.x, maxWidth: inner.width, style: .dim)
            return
        }
        let first = cursor.firstVisible(visible: inner.height, count: items.count)
        for row in 0..<min(inner.height, items.count - first) {
            let i = first + row
            let (facet, selected) = items[i]
            let count = String(facet.count)
            let mark = selected ? "[x] " : "[ ] "
            let valueWidth = max(1, inner.width - 4 - TextWidth.of(count) - 1)
            let line = mark + TextWidth.fit(facet.value, to: valueWidth) + " " + count
            let style: Style = focused && i == cursor.row ? .selected : (selected ? .bold : .normal)
            canvas.put(line, y: inner.y + row, x: inner.x, maxWidth: inner.width, style: style)
        }
    }
}
