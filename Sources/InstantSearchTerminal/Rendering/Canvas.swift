/// How text is drawn: plain, or one of a few emphases the terminal can show.
public enum Style: Sendable, Equatable {
    case normal
    /// A pane's title, a selected value.
    case bold
    /// A query word matched in a hit.
    case highlight
    /// The cursor's line in the focused pane.
    case selected
    /// Secondary text: counts, times.
    case dim
    /// A failure: a source that timed out or failed, the daemon unreachable.
    case error
    /// A source that answered.
    case ok
}

/// A rectangle of terminal cells.
public struct Rect: Sendable, Equatable {
    public var y: Int
    public var x: Int
    public var height: Int
    public var width: Int

    public init(y: Int, x: Int, height: Int, width: Int) {
        self.y = y
        self.x = x
        self.height = max(0, height)
        self.width = max(0, width)
    }

    /// The rectangle less `n` cells on every side.
    public func inset(_ n: Int) -> Rect { Rect(y: y + n, x: x + n, height: height - 2 * n, width: width - 2 * n) }
}

/// Where panes draw: the ncurses screen (``Screen``), or a grid of text in tests
/// (``TextCanvas``). Text never passes `maxWidth` cells.
@MainActor
public protocol Canvas: AnyObject {
    /// The size in cells.
    var size: (rows: Int, cols: Int) { get }
    /// Draws `text` from cell (`y`, `x`), at most `maxWidth` cells of it.
    func put(_ text: String, y: Int, x: Int, maxWidth: Int, style: Style)
}

extension Canvas {
    /// Draws runs of text one after another on a line, within `width` cells; returns the
    /// cells used.
    /// Text cut to fit ends with `…`, in the style of the run where the cut falls.
    @discardableResult
    public func putRuns(_ runs: [(String, Style)], y: Int, x: Int, width: Int) -> Int {
        guard width > 0 else { return 0 }
        let total = runs.reduce(0) { $0 + TextWidth.of($1.0) }
        let room = total > width ? width - 1 : width
        var used = 0
        var lastStyle = runs.first?.1 ?? .normal
        for (text, style) in runs {
            guard used < room else { break }
            let shown = TextWidth.prefix(text, to: room - used)
            put(shown, y: y, x: x + used, maxWidth: room - used, style: style)
            used += TextWidth.of(shown)
            lastStyle = style
        }
        if total > width {
            put("…", y: y, x: x + used, maxWidth: 1, style: lastStyle)
            used += 1
        }
        return used
    }

    /// Draws a pane's box (``box(_:title:focused:)``) and returns the room inside it, nil
    /// when there is none.
    public func pane(_ r: Rect, title: String, focused: Bool) -> Rect? {
        box(r, title: title, focused: focused)
        let inner = r.inset(1)
        return inner.height > 0 && inner.width > 0 ? inner : nil
    }

    /// Writes `text` into the bottom edge of box `r`, at its right (a list's position).
    public func boxNote(_ r: Rect, _ text: String, focused: Bool) {
        guard r.height >= 2, r.width >= 6 else { return }
        let label = TextWidth.truncate(" \(text) ", to: r.width - 4)
        put(label, y: r.y + r.height - 1, x: r.x + r.width - 2 - TextWidth.of(label), maxWidth: r.width - 4, style: focused ? .bold : .dim)
    }

    /// A box's border with `title` in its top edge; `focused` draws it bold.
    public func box(_ r: Rect, title: String, focused: Bool) {
        guard r.height >= 2, r.width >= 2 else { return }
        let style: Style = focused ? .bold : .dim
        let horizontal = String(repeating: "─", count: r.width - 2)
        put("┌" + horizontal + "┐", y: r.y, x: r.x, maxWidth: r.width, style: style)
        for row in 1..<(r.height - 1) {
            put("│", y: r.y + row, x: r.x, maxWidth: 1, style: style)
            put("│", y: r.y + row, x: r.x + r.width - 1, maxWidth: 1, style: style)
        }
        put("└" + horizontal + "┘", y: r.y + r.height - 1, x: r.x, maxWidth: r.width, style: style)
        let label = TextWidth.truncate(" \(title) ", to: r.width - 4)
        put(label, y: r.y, x: r.x + 2, maxWidth: r.width - 4, style: focused ? .selected : .bold)
    }
}

/// A canvas of text cells in memory: what a pane drew, read back as lines (the renderer's
/// tests).
@MainActor
public final class TextCanvas: Canvas {
    public let size: (rows: Int, cols: Int)
    private var cells: [[String]]
    private var styles: [[Style]]

    public init(rows: Int, cols: Int) {
        size = (rows, cols)
        cells = Array(repeating: Array(repeating: " ", count: cols), count: rows)
        styles = Array(repeating: Array(repeating: .normal, count: cols), count: rows)
    }

    public func put(_ text: String, y: Int, x: Int, maxWidth: Int, style: Style) {
        guard y >= 0, y < size.rows else { return }
        var col = x
        let end = min(size.cols, x + maxWidth)
        for c in TextWidth.printable(text) {
            let w = TextWidth.of(c)
            guard col + w <= end else { break }
            if col >= 0 {
                cells[y][col] = String(c)
                styles[y][col] = style
                if w == 2, col + 1 < size.cols { cells[y][col + 1] = "" }
            }
            col += w
        }
    }

    /// Line `y` as text (a wide character's second cell is empty).
    public func line(_ y: Int) -> String { cells[y].joined() }

    /// Every line.
    public var lines: [String] { (0..<size.rows).map(line) }

    /// The style of cell (`y`, `x`).
    public func style(y: Int, x: Int) -> Style { styles[y][x] }
}
