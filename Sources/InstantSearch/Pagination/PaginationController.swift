/// A view of the pages.
@MainActor
public protocol PaginationController: AnyObject {
    /// Set by the connection: call it with the page the user picks.
    var onClick: ((Int) -> Void)? { get set }
    func setPages(current: Int, count: Int)
}
