import InstantSearch
import InstantSearchTerminal

/// The built-in terminal search box, customised by composition: it draws and edits as the
/// built-in one does (it *is* the built-in one, wrapped), but the query it hands on has its
/// spaces collapsed and trimmed, so "star  wa " and "star wa" are one search, and a query
/// that only gained a space starts no search.
@MainActor
public final class NormalizingSearchBoxController: SearchBoxController, TerminalPane {
    /// The built-in controller doing the drawing and the editing.
    public let base: TerminalSearchBoxController
    public var onQueryChanged: ((String?) -> Void)?
    public var onQuerySubmitted: ((String?) -> Void)?
    private var lastSent: String?

    public init(base: TerminalSearchBoxController = TerminalSearchBoxController()) {
        self.base = base
        base.onQueryChanged = { [weak self] text in self?.forward(text) }
        base.onQuerySubmitted = { [weak self] text in self?.onQuerySubmitted?(Self.normalize(text)) }
    }

    /// `text` with runs of spaces made one and the ends trimmed.
    public static func normalize(_ text: String?) -> String? {
        text.map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
    }

    private func forward(_ text: String?) {
        let q = Self.normalize(text)
        guard q != lastSent else { return }
        lastSent = q
        onQueryChanged?(q)
    }

    public func setQuery(_ query: String?) {
        // The interactor sends back the normalized text: keep what the user typed if it says the same.
        guard Self.normalize(base.text) != Self.normalize(query) else { return }
        lastSent = Self.normalize(query)
        base.setQuery(query)
    }

    // TerminalPane: what the built-in one does.
    public var title: String { base.title }
    public var isFocusable: Bool { base.isFocusable }
    public var capturesTyping: Bool { base.capturesTyping }
    public var keyHints: [KeyHint] { base.keyHints }
    public var onNeedsDisplay: (() -> Void)? {
        get { base.onNeedsDisplay }
        set { base.onNeedsDisplay = newValue }
    }
    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) { base.draw(on: canvas, in: rect, focused: focused) }
    public func handle(_ key: Key) -> Bool { base.handle(key) }
}
