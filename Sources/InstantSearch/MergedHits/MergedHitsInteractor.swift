import FederatedSearchProtocol

/// The federated list: the merged hits of every source, each naming the index it came from.
@MainActor
public final class MergedHitsInteractor: ItemInteractor<MergedResults?> {
    public init() { super.init(item: nil) }

    /// The hits in merged order.
    public var hits: [MergedHit] { item?.hits ?? [] }
    /// The sum of the answering sources' nbHits.
    public var nbHits: Int { item?.nbHits ?? 0 }
}
