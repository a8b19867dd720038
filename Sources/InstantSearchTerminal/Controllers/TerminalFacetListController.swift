import InstantSearch

/// The built-in refinement list in a terminal pane: `[x] value  count` lines; with the focus,
/// the arrows move the cursor and Space (or Enter) toggles the value under it.
///
/// While the pane has the focus its values keep the order they had when it got it (new ones
/// join at the end), so toggling one, or counts that change, never move the value under the
/// cursor; unfocused, it shows the interactor's order from its top. A list longer than its
/// pane shows its position in its bottom border.
@MainActor
public final class TerminalFacetListController: FacetListController, TerminalPane {
    public var onClick: ((Facet) -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    public var keyHints: [KeyHint] { [KeyHint("↑↓", "move"), KeyHint("Space", "toggle")] }
    /// The values in the interactor's order.
    private var latest: [(item: Facet, isSelected: Bool)] = []
    /// While focused: the values in the order shown.
    private var order: [String]?
    private var cursor = ListCursor()
    /// The rows shown at the last draw, from the first (for clicks).
    private(set) var shownRange: (first: Int, inner: Rect)?

    public init(title: String) { self.title = title }

    /// The values as shown now.
    var items: [(item: Facet, isSelected: Bool)] {
        guard let order else { return latest }
        let byValue = Dictionary(latest.map { ($0.item.value, $0) }, uniquingKeysWith: { a, _ in a })
        return order.compactMap { byValue[$0] }
    }

    public func setSelectableItems(_ items: [(item: Facet, isSelected: Bool)]) {
        let current = self.items.indices.contains(cursor.row) ? self.items[cursor.row].item.value : nil
        latest = items
        if var kept = order {
            let known = Set(kept)
            kept += items.map(\.item.value).filter { !known.contains($0) }
            order = kept
        }
        // The cursor stays on its value.
        let shown = self.items
        if let current, let i = shown.firstIndex(where: { $0.item.value == current }) { cursor.select(i, count: shown.count) }
    }

    public func reload() { onNeedsDisplay?() }

    public func handle(_ key: Key) -> Bool {
        let shown = items
        if key == .character(" ") || key == .enter {
            guard shown.indices.contains(cursor.row) else { return false }
            onClick?(shown[cursor.row].item)
            return true
        }
        guard cursor.handle(key, count: shown.count, page: 5) else { return false }
        onNeedsDisplay?()
        return true
    }

    /// A click on row `row` of the pane's inner rectangle: the value there gets the cursor and
    /// is toggled; false when no value is there.
    public func click(row: Int) -> Bool {
        guard let (first, _) = shownRange else { return false }
        let shown = items
        let i = first + row
        guard shown.indices.contains(i) else { return false }
        cursor.select(i, count: shown.count)
        onClick?(shown[i].item)
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        if focused, order == nil { order = latest.map(\.item.value) }
        if !focused, order != nil {
            // Back to the interactor's order, the cursor on its value.
            let current = items.indices.contains(cursor.row) ? items[cursor.row].item.value : nil
            order = nil
            if let current, let i = latest.firstIndex(where: { $0.item.value == current }) { cursor.select(i, count: latest.count) }
        }
        shownRange = nil
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        let shown = items
        if shown.isEmpty {
            canvas.put("no values", y: inner.y, x: inner.x, maxWidth: inner.width, style: .dim)
            return
        }
        // Unfocused, the list shows its top (the cursor is kept for when the focus comes back).
        let first = focused ? cursor.firstVisible(visible: inner.height, count: shown.count) : 0
        shownRange = (first, inner)
        for row in 0..<min(inner.height, shown.count - first) {
            let i = first + row
            let (facet, selected) = shown[i]
            let count = DisplayFormat.count(facet.count)
            let mark = selected ? "[x] " : "[ ] "
            let valueWidth = max(1, inner.width - 4 - TextWidth.of(count) - 1)
            let line = mark + TextWidth.fit(facet.value, to: valueWidth) + " " + count
            let style: Style = focused && i == cursor.row ? .selected : (selected ? .bold : .normal)
            canvas.put(line, y: inner.y + row, x: inner.x, maxWidth: inner.width, style: style)
        }
        if let note = cursor.position(first: first, visible: inner.height, count: shown.count, focused: focused) {
            canvas.boxNote(rect, note, focused: focused)
        }
    }
}
