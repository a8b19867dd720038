import FederatedSearchProtocol

/// A view of the merged list.
@MainActor
public protocol MergedHitsController: AnyObject {
    /// Shows `hits` (each with its `index`), out of `nbHits` in all.
    func setHits(_ hits: [MergedHit], nbHits: Int)
}
