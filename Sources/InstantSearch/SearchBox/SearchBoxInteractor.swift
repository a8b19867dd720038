/// The search box's logic: the query typed, and whether it was submitted.
@MainActor
public final class SearchBoxInteractor: ItemInteractor<String?> {
    /// Fired with the query when the user submits it (Enter).
    public let onQuerySubmitted = Observer<String?>()

    public init(query: String? = nil) { super.init(item: query) }

    /// The query typed (``item``).
    public var query: String? {
        get { item }
        set { if newValue != item { item = newValue } }
    }

    /// Fired with the query after each change (``onItemChanged``).
    public var onQueryChanged: Observer<String?> { onItemChanged }

    /// Submits the current query.
    public func submitQuery() { onQuerySubmitted.fire(query) }
}
