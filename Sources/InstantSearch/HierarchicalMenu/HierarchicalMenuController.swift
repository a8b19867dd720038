/// A view of a hierarchical menu: it shows the entries (indented by level) and reports a click.
@MainActor
public protocol HierarchicalMenuController: AnyObject {
    func setItems(_ items: [HierarchicalItem])
    var onClick: ((String) -> Void)? { get set }
}
