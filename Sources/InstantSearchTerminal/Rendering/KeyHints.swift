/// One key a pane or the dashboard takes, as the footer and the help overlay name it.
public struct KeyHint: Sendable, Equatable {
    /// The key as written (`Tab`, `^U`, `↑↓`).
    public var key: String
    /// What it does (`clear query`).
    public var action: String

    public init(_ key: String, _ action: String) {
        self.key = key
        self.action = action
    }
}

/// The footer's line of keys, fitted to a width: the `essential` keys (how to quit, how to get
/// help) are always shown, at the end; the others in their order, as many as fit whole.
public enum KeyHints {
    /// The runs of text for the keys that fit in `width` cells.
    public static func runs(_ hints: [KeyHint], essential: [KeyHint], width: Int) -> [(String, Style)] {
        func cells(_ h: KeyHint) -> Int { TextWidth.of(h.key) + 1 + TextWidth.of(h.action) + 2 }
        var room = width - essential.reduce(0) { $0 + cells($1) }
        var shown: [KeyHint] = []
        for h in hints where !essential.contains(h) {
            guard cells(h) <= room else { break }
            shown.append(h)
            room -= cells(h)
        }
        return (shown + essential).flatMap { [($0.key, Style.bold), (" \($0.action)  ", Style.dim)] }
    }
}
