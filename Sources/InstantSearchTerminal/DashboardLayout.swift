/// Where a dashboard's parts go on a terminal of a given size. Pure, so the layout of every
/// size is tested without a terminal.
///
/// Wide terminals (at least ``wideColumns`` columns) show the search box on top, the facet
/// panes stacked on the left, the index columns and the merged list side by side, and the
/// filters, status and keys lines at the bottom. Narrower ones show one content pane at a time
/// (the focused one), full width, so nothing is squeezed past reading, under a line of tabs
/// that names every pane.
public struct DashboardLayout: Sendable, Equatable {
    /// The width from which panes are shown side by side.
    public static let wideColumns = 90

    public var search: Rect
    /// The line of tabs (narrow layouts only; height 0 otherwise).
    public var tabs: Rect
    /// One rectangle per content pane (facets first, then index columns, then the merged
    /// list), nil for a pane not shown at this size.
    public var content: [Rect?]
    public var filters: Rect
    public var status: Rect
    public var footer: Rect
    /// Whether one content pane is shown at a time.
    public var isNarrow: Bool

    /// The layout of a `rows` × `cols` terminal with `facetPanes` facet panes and
    /// `mainPanes` other content panes; `focusedContent` is the content pane with the focus
    /// (what a narrow layout shows).
    public static func compute(rows: Int, cols: Int, facetPanes: Int, mainPanes: Int, focusedContent: Int?) -> DashboardLayout {
        let searchHeight = rows >= 8 ? 3 : 1
        let bottom = min(3, max(0, rows - searchHeight))
        let narrow = cols < wideColumns
        let tabsHeight = narrow && rows - searchHeight - bottom > 2 ? 1 : 0
        let contentTop = searchHeight + tabsHeight
        let contentHeight = max(0, rows - contentTop - bottom)
        let total = facetPanes + mainPanes
        var content = [Rect?](repeating: nil, count: total)
        if narrow {
            let shown = focusedContent.map { min(max(0, $0), total - 1) } ?? facetPanes
            if total > 0 { content[shown] = Rect(y: contentTop, x: 0, height: contentHeight, width: cols) }
        } else {
            var x = 0
            if facetPanes > 0 {
                let width = min(32, max(20, cols / 5))
                let height = contentHeight / facetPanes
                for i in 0..<facetPanes {
                    let h = i == facetPanes - 1 ? contentHeight - height * (facetPanes - 1) : height
                    content[i] = Rect(y: contentTop + i * height, x: 0, height: h, width: width)
                }
                x = width
            }
            if mainPanes > 0 {
                let width = (cols - x) / mainPanes
                for j in 0..<mainPanes {
                    let w = j == mainPanes - 1 ? cols - x - width * (mainPanes - 1) : width
                    content[facetPanes + j] = Rect(y: contentTop, x: x + j * width, height: contentHeight, width: w)
                }
            }
        }
        let line = { (n: Int) in Rect(y: contentTop + contentHeight + n, x: 0, height: n < bottom ? 1 : 0, width: cols) }
        return DashboardLayout(
            search: Rect(y: 0, x: 0, height: searchHeight, width: cols),
            tabs: Rect(y: searchHeight, x: 0, height: tabsHeight, width: cols), content: content, filters: line(0), status: line(1),
            footer: line(2), isNarrow: narrow)
    }
}
