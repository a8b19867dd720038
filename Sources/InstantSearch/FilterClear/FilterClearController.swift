/// A view of a "clear filters" button.
@MainActor
public protocol FilterClearController: AnyObject {
    /// Set by the connection: call it when the user clears.
    var onClick: (() -> Void)? { get set }
}
