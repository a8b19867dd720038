/// A view of the search box: it shows the query and reports what the user types.
@MainActor
public protocol SearchBoxController: AnyObject {
    /// Set by the connection: call it with the text after each edit.
    var onQueryChanged: ((String?) -> Void)? { get set }
    /// Set by the connection: call it when the user submits the text.
    var onQuerySubmitted: ((String?) -> Void)? { get set }
    /// Shows `query` (the interactor's query changed elsewhere, or was reset).
    func setQuery(_ query: String?)
}
