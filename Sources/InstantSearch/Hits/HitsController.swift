import FederatedSearchCore

/// A view of a list of hits.
@MainActor
public protocol HitsController: AnyObject {
    /// The interactor to read hits from (``HitsInteractor/hit(atIndex:)``).
    var hitsSource: HitsInteractor? { get set }
    /// Shows the hits again (they changed).
    func reload()
    /// Scrolls back to the first hit (a new query's first page).
    func scrollToTop()
}
