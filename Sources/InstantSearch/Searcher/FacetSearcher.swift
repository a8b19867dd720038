import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// One facet value found by a facet search, with its count and the typed prefix highlighted.
public struct FacetHit: Sendable, Equatable {
    public let value: String
    public let highlighted: String
    public let count: Int
}

/// The answer of a facet search.
public struct FacetSearchResults: Sendable, Equatable {
    public let facetQuery: String
    public let facetHits: [FacetHit]
    public let exhaustiveFacetsCount: Bool
    public let processingTimeMS: Double
}

/// Searches the values of one facet ("search in brands"): `searchForFacetValues`, counted
/// over the documents matching ``searchQuery`` and ``parameters`` (with the filters of the
/// connected filter state). Its ``query`` is the facet query typed.
@MainActor
public final class FacetSearcher: Searcher {
    public let transport: any SearchTransport
    public let index: SearcherId
    public let facetName: String
    /// The facet prefix typed.
    public var query: String? {
        didSet { if oldValue != query { onQueryChanged.fire(query) } }
    }
    /// The search query the counts are made under.
    public var searchQuery = ""
    public var parameters = SearchParameters()
    public var maxFacetHits = 10
    public let onResults = Observer<FacetSearchResults>()
    public let onQueryChanged = Observer<String?>()
    public let isLoading = Observer<Bool>()
    public let onError = Observer<SearcherError>()
    public let onSearch = Observer<String?>()
    /// The connections made by `connect...` (kept as long as the searcher lives).
    public var connections: [any Connection] = []
    /// The filter state whose filters the counts respect (but the facet's own `or` group:
    /// a disjunctive facet's values are counted as if none of them were selected).
    weak var filterState: FilterState?
    /// The attributes the index can filter on: the filter state's other filters are dropped
    /// (nil keeps every one), as ``FederatedSearcher/Source/filterableAttributes``.
    public var filterableAttributes: Set<String>?
    /// Only the order of answers (`searchForFacetValues` has no daemon session).
    private var sequencer = KeystrokeSequencer(session: "")
    private var running: [Int: RequestHandle] = [:]

    public init(transport: any SearchTransport, index: SearcherId, facetName: String) {
        self.transport = transport
        self.index = index
        self.facetName = facetName
    }

    public func search() {
        let seq = sequencer.issue()
        var p = parameters
        var filters = filterState?.filters.restricted(to: filterableAttributes)
        if var f = filters {
            for i in f.groups.indices {
                if case .or = f.groups[i].id { f.groups[i].filters.removeAll { $0.attribute == facetName } }
            }
            filters = f
        }
        if let extra = filters?.expression() {
            let combined = FilterExpression.allOf([p.filter, extra])
            p.filter = combined
            p.filters = combined?.description
            (p.facetFilters, p.numericFilters, p.tagFilters) = (nil, nil, nil)
        }
        let request = FacetValuesRequest(
            index: index.index, facetName: facetName, facetQuery: query ?? "", query: searchQuery, params: p,
            maxFacetHits: maxFacetHits)
        onSearch.fire(query)
        if running.isEmpty { isLoading.fire(true) }
        let facetQuery = query ?? ""
        do {
            running[seq] = try transport.send(.searchForFacetValues(request)) { [weak self] event in
                self?.receive(event, seq: seq, facetQuery: facetQuery)
            }
        } catch {
            onError.fire(SearcherError(error))
            if !sequencer.ended(seq) { isLoading.fire(false) }
        }
    }

    /// What the transport hands over for search `seq`, on the main actor.
    private func receive(_ event: ResponseEvent, seq: Int, facetQuery: String) {
        switch event {
        case .frames(let frames):
            for frame in frames { handle(frame, seq: seq, facetQuery: facetQuery) }
            return
        case .ended: break
        case .failed(let error):
            if seq == sequencer.lastIssued { onError.fire(SearcherError(error)) }
        }
        guard running.removeValue(forKey: seq) != nil else { return }
        if !sequencer.ended(seq) { isLoading.fire(false) }
    }

    public func cancel() {
        running.values.forEach { $0.cancel() }
        running = [:]
        sequencer.abandonAll()
        isLoading.fire(false)
    }

    /// Applies `filterState`'s filters to the counts, searching again when they change (while
    /// a facet query is typed).
    @discardableResult
    public func connectFilterState(_ filterState: FilterState) -> any Connection {
        let connection = ClosureConnection(
            connect: { [weak self, weak filterState] connection in
                guard let self, let filterState else { return }
                self.filterState = filterState
                filterState.onChange.subscribe(with: connection) { [weak self] _, _ in
                    if let self, !(self.query ?? "").isEmpty { self.search() }
                }
            },
            disconnect: { [weak self, weak filterState] connection in
                self?.filterState = nil
                filterState?.onChange.cancelSubscription(for: connection)
            })
        connections.append(connection)
        return connection
    }

    private func handle(_ frame: Frame, seq: Int, facetQuery: String) {
        guard sequencer.shouldDeliver(seq) else { return }
        switch frame {
        case .info(_, "facetHits", let p):
            let hits = (p["facetHits"]?.arrayValue ?? []).compactMap { v -> FacetHit? in
                guard let o = v.objectValue, let value = o["value"]?.stringValue else { return nil }
                return FacetHit(value: value, highlighted: o["highlighted"]?.stringValue ?? value, count: o["count"]?.intValue ?? 0)
            }
            onResults.fire(
                FacetSearchResults(
                    facetQuery: facetQuery, facetHits: hits, exhaustiveFacetsCount: p["exhaustiveFacetsCount"]?.boolValue ?? true,
                    processingTimeMS: p["processingTimeMS"]?.numberValue ?? 0))
        case .error(_, _, let e):
            onError.fire(SearcherError(source: index.index, code: e.code.rawValue, message: e.message))
        default:
            break
        }
    }
}
