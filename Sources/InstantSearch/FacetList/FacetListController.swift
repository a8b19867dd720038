/// A view of a refinement list.
@MainActor
public protocol FacetListController: AnyObject {
    /// Set by the connection: call it with the value the user toggles.
    var onClick: ((Facet) -> Void)? { get set }
    /// Shows `items`, each with whether it is selected.
    func setSelectableItems(_ items: [(item: Facet, isSelected: Bool)])
    /// Shows the items again.
    func reload()
}
