/// A view of a filter toggle.
@MainActor
public protocol FilterToggleController: AnyObject {
    /// Set by the connection: call it when the user flips the toggle.
    var onClick: (() -> Void)? { get set }
    /// Shows the filter and whether it is on.
    func setItem(_ filter: Filter, isSelected: Bool)
}
