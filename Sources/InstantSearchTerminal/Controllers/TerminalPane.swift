import InstantSearch

/// A part of a terminal screen that draws itself in the rectangle it is given and may take
/// keys while it has the focus. Every built-in terminal controller is one.
@MainActor
public protocol TerminalPane: AnyObject {
    /// Shown in the pane's border.
    var title: String { get }
    /// Whether Tab stops on it.
    var isFocusable: Bool { get }
    /// Draws the pane into `rect` (its border included).
    func draw(on canvas: any Canvas, in rect: Rect, focused: Bool)
    /// Acts on a key while focused; false when the key is not the pane's.
    func handle(_ key: Key) -> Bool
    /// Set by whoever shows the pane: call it when the pane must be drawn again.
    var onNeedsDisplay: (() -> Void)? { get set }
    /// The keys it takes while focused, for the footer and the help overlay.
    var keyHints: [KeyHint] { get }
    /// Whether typed characters go to it (a text field): then it sees every key first, and
    /// letters such as `q` are text, not commands.
    var capturesTyping: Bool { get }
    /// A click on screen line `y` of the pane (a list selects, or toggles, the row there);
    /// false when nothing is there.
    func click(y: Int) -> Bool
}

extension TerminalPane {
    public var keyHints: [KeyHint] { [] }
    public var capturesTyping: Bool { false }
    public func click(y: Int) -> Bool { false }
}

/// A pane's list: a cursor and the first row shown, kept in view as the cursor moves.
struct ListCursor {
    private(set) var row = 0
    private(set) var top = 0

    /// Moves by `delta` rows within `count` rows.
    mutating func move(_ delta: Int, count: Int) {
        row = max(0, min(count - 1, row + delta))
    }

    mutating func reset() { (row, top) = (0, 0) }

    /// Moves the cursor to `row` (a click), within `count` rows.
    mutating func select(_ row: Int, count: Int) { move(row - self.row, count: count) }

    /// What a list of `count` rows shows from `first` in `visible` rows says of its position,
    /// for its border: the cursor's row (`12/48`), and arrows when more is above or below;
    /// nil when the list fits.
    func position(first: Int, visible: Int, count: Int, focused: Bool) -> String? {
        guard count > visible else { return nil }
        let at = focused ? row + 1 : first + 1
        return (first > 0 ? "↑ " : "") + "\(DisplayFormat.count(at))/\(DisplayFormat.count(count))" + (first + visible < count ? " ↓" : "")
    }

    /// The first row to show in `visible` rows, so the cursor is in view.
    mutating func firstVisible(visible: Int, count: Int) -> Int {
        row = max(0, min(row, count - 1))
        if row < top { top = row }
        if row >= top + visible { top = row - visible + 1 }
        top = max(0, min(top, max(0, count - visible)))
        return top
    }

    /// Moves the cursor for a movement key within `count` rows (`page` rows for PgUp/PgDn);
    /// false when the key is not one or the list is empty.
    mutating func handle(_ key: Key, count: Int, page: Int) -> Bool {
        guard let d = Self.delta(key, page: page), count > 0 else { return false }
        move(d, count: count)
        return true
    }

    /// The cursor's movement for a key, if it is a movement key.
    static func delta(_ key: Key, page: Int) -> Int? {
        switch key {
        case .up, .character("k"): return -1
        case .down, .character("j"): return 1
        case .pageUp: return -max(1, page)
        case .pageDown: return max(1, page)
        case .home: return Int.min / 2
        case .end: return Int.max / 2
        default: return nil
        }
    }
}
