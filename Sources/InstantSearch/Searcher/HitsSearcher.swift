import FederatedSearchClient
import FederatedSearchCore

/// Searches one index: a ``FederatedSearcher`` of one source whose answers are not merged.
@MainActor
public final class HitsSearcher: Searcher, SearchResultsSource {
    /// The federated searcher doing the work (its one source is this index).
    public let federated: FederatedSearcher
    /// The index searched.
    public var index: SearcherId { source.id }
    private var source: FederatedSearcher.Source { federated.sources[0] }

    public init(transport: any SearchTransport, index: SearcherId) {
        federated = FederatedSearcher(transport: transport, indices: [index])
        federated.merge = ["strategy": "grouped"]
    }

    /// Searches `index` on the daemon at `socketPath`.
    public convenience init(socketPath: String, index: String) {
        self.init(transport: DaemonConnection(path: socketPath), index: SearcherId(index: index))
    }

    public var query: String? {
        get { federated.query }
        set { federated.query = newValue }
    }
    public var parameters: SearchParameters {
        get { source.parameters }
        set { source.parameters = newValue }
    }
    public var onResults: Observer<SearchResults> { source.onResults }
    public var onQueryChanged: Observer<String?> { federated.onQueryChanged }
    public var isLoading: Observer<Bool> { federated.isLoading }
    public var onError: Observer<SearcherError> { federated.onError }
    public var onSearch: Observer<String?> { federated.onSearch }
    /// What the index did in each search (its time and status).
    public var onStatus: Observer<FederatedSearcher.Status> { federated.onStatus }

    public func search() { federated.search() }
    public func cancel() { federated.cancel() }

    /// Applies the filters of `filterState` to this index's searches, and searches again
    /// (from the first page) whenever they change.
    @discardableResult
    public func connectFilterState(_ filterState: FilterState) -> any Connection {
        federated.connectFilterState(filterState)
    }
}
