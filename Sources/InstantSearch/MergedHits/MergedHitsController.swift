import FederatedSearchProtocol

/// A view of the merged list.
@MainActor
public protocol MergedHitsController: AnyObject {
    /// The interactor to read hits from (``MergedHitsInteractor/hit(atIndex:)``, which loads
    /// the next page as the list nears its end).
    var hitsSource: MergedHitsInteractor? { get set }
    /// Shows `hits` (each with its `index`), out of `nbHits` in all.
    func setHits(_ hits: [MergedHit], nbHits: Int)
}
