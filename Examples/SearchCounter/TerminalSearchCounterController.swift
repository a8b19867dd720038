import InstantSearch
import InstantSearchTerminal

/// The counter's concrete controller for a terminal: one line, `searches: 12 (Ctrl-R resets)`;
/// Ctrl-R asks for the reset whichever pane has the focus (the dashboard hands it every key
/// the focused pane did not take).
@MainActor
public final class TerminalSearchCounterController: SearchCounterController, TerminalPane {
    public var onReset: (() -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public let title = "Searches"
    public var isFocusable: Bool { false }
    public private(set) var count = 0

    public init() {}

    public func setCount(_ count: Int) {
        self.count = count
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool {
        guard key == .control("r") else { return false }
        onReset?()
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        canvas.putRuns(
            [("searches: ", .bold), ("\(count)", .normal), (" (Ctrl-R resets)", .dim)], y: rect.y, x: rect.x,
            width: rect.width)
    }
}
