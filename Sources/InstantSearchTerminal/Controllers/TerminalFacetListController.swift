import InstantSearch

/// The built-in refinement list in a terminal pane: `[x] value  count` lines; with the focus,
/// the arrows move the cursor and Space (or Enter) toggles the value under it.
///
/// While the pane has the focus its values keep the order they had when it got it (new ones
/// join at the end), so toggling one, or counts that change, never move the value under the
/// cursor; unfocused, it shows the interactor's order from its top. A list longer than its
/// pane shows its position in its bottom border. `/` starts a search of the facet's values
/// (``onSearchChanged`` tells whoever runs it; the found values come through the interactor),
/// Esc ends it.
@MainActor
public final class TerminalFacetListController: FacetListController, TerminalPane {
    public var onClick: ((Facet) -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public var title: String
    public var isFocusable: Bool { true }
    public var keyHints: [KeyHint] {
        searchText == nil
            ? [KeyHint("↑↓", "move"), KeyHint("Space", "toggle"), KeyHint("/", "search values")]
            : [KeyHint("↑↓", "move"), KeyHint("Enter", "toggle"), KeyHint("Esc", "end search")]
    }
    /// The facet query typed after `/` (nil: not searching).
    public private(set) var searchText: String?
    /// Called with the facet query as it is typed, and nil when the search ends (nil: `/`
    /// is not taken).
    public var onSearchChanged: ((String?) -> Void)?
    public var capturesTyping: Bool { searchText != nil }
    /// The values in the interactor's order.
    private var latest: [(item: Facet, isSelected: Bool)] = []
    /// While focused: the values in the order shown.
    private var order: [String]?
    private var cursor = ListCursor()
    /// The first value shown at the last draw, and the screen line it is on (for clicks).
    private var shownRange: (first: Int, top: Int)?

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
        if searchText != nil, let handled = handleSearch(key) { return handled }
        if key == .character("/"), let onSearchChanged {
            // The values found come in the search's order; the list's own comes back after.
            searchText = ""
            order = nil
            onSearchChanged("")
            onNeedsDisplay?()
            return true
        }
        if key == .character(" ") || key == .enter {
            guard shown.indices.contains(cursor.row) else { return false }
            onClick?(shown[cursor.row].item)
            return true
        }
        guard cursor.handle(key, count: shown.count, page: 5) else { return false }
        onNeedsDisplay?()
        return true
    }

    /// Keys while searching: text edits the facet query, Esc ends the search; nil for the
    /// keys that act as they do otherwise (moving, Enter toggling).
    private func handleSearch(_ key: Key) -> Bool? {
        guard var text = searchText else { return nil }
        switch key {
        case .character(let c): text.append(c)
        case .backspace: if !text.isEmpty { text.removeLast() }
        case .control("u"): text = ""
        case .escape:
            searchText = nil
            order = nil
            cursor.reset()
            onSearchChanged?(nil)
            onNeedsDisplay?()
            return true
        default: return nil
        }
        guard text != searchText else { return true }
        searchText = text
        cursor.reset()
        onSearchChanged?(text)
        onNeedsDisplay?()
        return true
    }

    /// A click on screen line `y`: the value shown there gets the cursor and is toggled; false
    /// when no value is there.
    public func click(y: Int) -> Bool {
        guard let (first, top) = shownRange else { return false }
        let shown = items
        let i = first + (y - top)
        guard y >= top, shown.indices.contains(i) else { return false }
        cursor.select(i, count: shown.count)
        onClick?(shown[i].item)
        onNeedsDisplay?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        if !focused, searchText != nil {
            // Leaving the pane ends its search.
            searchText = nil
            onSearchChanged?(nil)
        }
        if focused, order == nil, searchText == nil { order = latest.map(\.item.value) }
        if !focused, order != nil {
            // Back to the interactor's order, the cursor on its value.
            let current = items.indices.contains(cursor.row) ? items[cursor.row].item.value : nil
            order = nil
            if let current, let i = latest.firstIndex(where: { $0.item.value == current }) { cursor.select(i, count: latest.count) }
        }
        shownRange = nil
        guard var inner = canvas.pane(rect, title: title, focused: focused) else { return }
        if let searchText {
            canvas.putRuns([("/ ", .bold), (searchText, .normal), ("▏", .bold)], y: inner.y, x: inner.x, width: inner.width)
            inner = Rect(y: inner.y + 1, x: inner.x, height: inner.height - 1, width: inner.width)
            guard inner.height > 0 else { return }
        }
        let shown = items
        if shown.isEmpty {
            let empty = searchText.map { $0.isEmpty ? "type to search the values" : "no value starts with '\($0)'" } ?? "no values"
            canvas.put(empty, y: inner.y, x: inner.x, maxWidth: inner.width, style: .dim)
            return
        }
        // Unfocused, the list shows its top (the cursor is kept for when the focus comes back).
        let first = focused ? cursor.firstVisible(visible: inner.height, count: shown.count) : 0
        shownRange = (first, inner.y)
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
