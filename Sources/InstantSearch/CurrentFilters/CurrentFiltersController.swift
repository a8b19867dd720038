/// A view of the filters in force.
@MainActor
public protocol CurrentFiltersController: AnyObject {
    /// Set by the connection: call it with a filter the user removes.
    var onRemoveItem: ((FilterAndID) -> Void)? { get set }
    /// Shows the filters.
    func setItems(_ items: [FilterAndID])
}
