import InstantSearch

/// The built-in search box of a terminal: one line of text edited in place (typing,
/// Backspace, Ctrl-U clears, Ctrl-W deletes a word, Enter submits).
@MainActor
public final class TerminalSearchBoxController: SearchBoxController, TerminalPane {
    public var onQueryChanged: ((String?) -> Void)?
    public var onQuerySubmitted: ((String?) -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public let title: String
    public var isFocusable: Bool { true }
    public var capturesTyping: Bool { true }
    /// Shown when the query is empty.
    public var placeholder: String
    /// The text in the box.
    public private(set) var text = ""

    public init(title: String = "Search", placeholder: String = "type to search") {
        self.title = title
        self.placeholder = placeholder
    }

    public func setQuery(_ query: String?) {
        guard (query ?? "") != text else { return }
        text = query ?? ""
        onNeedsDisplay?()
    }

    /// Replaces the text as if the user typed it (the query goes to the interactor).
    public func edit(_ newText: String) {
        guard newText != text else { return }
        text = newText
        onQueryChanged?(text)
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool {
        switch key {
        case .character(let c): edit(text + String(c))
        case .backspace: if !text.isEmpty { edit(String(text.dropLast())) }
        case .control("u"): edit("")
        case .control("w"):
            var t = Substring(text)
            while t.last == " " { t = t.dropLast() }
            while let l = t.last, l != " " { t = t.dropLast() }
            edit(String(t))
        case .enter: onQuerySubmitted?(text)
        default: return false
        }
        return true
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard let inner = canvas.pane(rect, title: title, focused: focused) else { return }
        if text.isEmpty {
            canvas.putRuns([("> ", .bold), (placeholder, .dim)], y: inner.y, x: inner.x, width: inner.width)
        } else {
            // The end of a long query stays in view.
            var shown = text
            while TextWidth.of(shown) > inner.width - 3, !shown.isEmpty { shown.removeFirst() }
            canvas.putRuns([("> ", .bold), (shown, .normal), (focused ? "▏" : "", .bold)], y: inner.y, x: inner.x, width: inner.width)
        }
    }
}
