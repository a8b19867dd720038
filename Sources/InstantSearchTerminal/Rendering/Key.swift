/// A key the user pressed, as the panes understand it.
public enum Key: Sendable, Equatable {
    case character(Character)
    /// Ctrl with a letter (`control("u")`).
    case control(Character)
    case tab, backTab, enter, escape, backspace, delete
    case up, down, left, right, pageUp, pageDown, home, end
    /// A function key (`function(1)` is F1).
    case function(Int)
    /// The terminal changed size.
    case resize
    /// A mouse event at a cell of the screen.
    case mouse(MouseEvent)
}

/// A click or a turn of the wheel, at a cell of the screen.
public struct MouseEvent: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case click, wheelUp, wheelDown }
    public var kind: Kind
    public var y: Int
    public var x: Int

    public init(_ kind: Kind, y: Int, x: Int) {
        self.kind = kind
        self.y = y
        self.x = x
    }
}
