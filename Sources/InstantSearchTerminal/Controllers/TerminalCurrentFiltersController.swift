import InstantSearch

/// The built-in line of filters in force: `filters: genres: Drama · year >= 2000` (Esc clears
/// them, through a clear interactor the dashboard connects).
@MainActor
public final class TerminalCurrentFiltersController: CurrentFiltersController, TerminalPane {
    public var onRemoveItem: ((FilterAndID) -> Void)?
    public var onNeedsDisplay: (() -> Void)?
    public let title = "Filters"
    public var isFocusable: Bool { false }
    private(set) var items: [FilterAndID] = []
    /// Whether no filter is in force.
    public var isEmpty: Bool { items.isEmpty }

    public init() {}

    public func setItems(_ items: [FilterAndID]) {
        self.items = items
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool { false }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard rect.height > 0 else { return }
        var runs: [(String, Style)] = [("filters: ", .bold)]
        if items.isEmpty { runs.append(("none", .dim)) }
        for (i, item) in items.enumerated() {
            if i > 0 { runs.append((" · ", .dim)) }
            runs.append((item.text, .normal))
        }
        canvas.putRuns(runs, y: rect.y, x: rect.x, width: rect.width)
    }
}
