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
}
