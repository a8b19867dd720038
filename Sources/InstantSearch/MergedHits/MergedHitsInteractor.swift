import FederatedSearchProtocol

/// The federated list: the merged hits of every source, each naming the index it came from.
/// It scrolls on: asking for a hit near the end of those loaded asks the searcher for the next
/// page of the merged list (``FederatedSearcher/loadMergedPage(offset:limit:)``).
@MainActor
public final class MergedHitsInteractor: ItemInteractor<MergedResults?> {
    /// How close to the end a requested row loads the next page.
    public let prefetchDistance: Int
    /// Fired with the offset of the page needed (the searcher connection asks for it).
    public let onPageRequested = Observer<Int>()
    /// The query of the hits shown.
    public private(set) var query: String?
    private var requestedOffset: Int?

    public init(prefetchDistance: Int = 5) {
        self.prefetchDistance = prefetchDistance
        super.init(item: nil)
    }

    /// The hits in merged order.
    public var hits: [MergedHit] { item?.hits ?? [] }
    /// The sum of the answering sources' nbHits.
    public var nbHits: Int { item?.nbHits ?? 0 }

    /// The hit at `index`; asking near the end of those loaded loads the next page.
    public func hit(atIndex index: Int) -> MergedHit? {
        guard hits.indices.contains(index) else { return nil }
        if index >= hits.count - prefetchDistance { loadMoreIfNeeded() }
        return hits[index]
    }

    /// Asks for the hits after those loaded, unless asked already or all are loaded.
    public func loadMoreIfNeeded() {
        let offset = hits.count
        guard offset > 0, offset < nbHits, requestedOffset != offset else { return }
        requestedOffset = offset
        onPageRequested.fire(offset)
    }

    /// Takes the first page of a search.
    public func update(_ results: MergedResults, query: String?) {
        self.query = query
        requestedOffset = nil
        item = results
    }

    /// Takes a later page: joined to the hits if it follows them and answers the same query.
    public func append(_ page: MergedPage) {
        guard page.query == (query ?? ""), page.offset == hits.count, var merged = item else { return }
        merged.hits += page.results.hits
        merged.nbHits = page.results.nbHits
        requestedOffset = nil
        item = merged
    }
}
