import FederatedSearchCore

/// The advanced form of a custom backend, as in InstantSearch: typed parameters and results,
/// and three mapping functions around one call.
///
/// - ``map(query:)`` turns the daemon's query into the backend's own parameters;
/// - ``map(query:disjunctiveFacets:refinements:)`` does the same when the query refines
///   disjunctive facets (so the backend can count the other values of a refined facet);
/// - ``search(_:)`` makes the call;
/// - ``map(results:)`` turns the backend's answer into `SearchResults`.
///
/// Wrap a conformer in ``ClientSearchable`` to serve it from the daemon. Implementations must
/// be safe to call concurrently and should let cancellation stop ``search(_:)`` promptly.
public protocol SearchClient: Sendable {
    /// The backend's own request.
    associatedtype Parameters: Sendable
    /// The backend's own answer.
    associatedtype Results: Sendable

    /// What the daemon reports about this backend in the `indices` op.
    var description: SearchableDescription { get }

    /// The backend's parameters for a query without disjunctive refinements.
    func map(query: SearchQuery) throws -> Parameters

    /// The backend's parameters for a query that refines some of `disjunctiveFacets`.
    ///
    /// `refinements` holds, per refined disjunctive facet, the values the filter selects
    /// (in filter order). A refined disjunctive facet still shows the counts of its other
    /// values: count it with ``FacetRefinements/filter(_:removingRefinementsOf:)``.
    /// The default implementation calls ``map(query:)``.
    func map(query: SearchQuery, disjunctiveFacets: Set<String>, refinements: FacetRefinements) throws -> Parameters

    /// Converts the backend's answer. Fields left empty (`query`, `params`, `index`) are
    /// filled in by ``ClientSearchable``; each hit's `rankingScore` must be in [0, 1].
    func map(results: Results) throws -> SearchResults

    /// Runs the backend's search.
    func search(_ parameters: Parameters) async throws -> Results

    /// Whether ``search(_:)`` waits only on the process's outgoing HTTP loop
    /// (``HTTPTransport`` with `http://` URLs): the daemon then runs the search on its loop
    /// thread (see `LoopWaitingSearchable`). False by default.
    var waitsOnlyOnHTTPLoop: Bool { get }
}

extension SearchClient {
    /// A client waits on whatever it uses, unless it says otherwise.
    public var waitsOnlyOnHTTPLoop: Bool { false }

    /// By default a client ignores faceting context and maps the query as usual.
    public func map(query: SearchQuery, disjunctiveFacets: Set<String>, refinements: FacetRefinements) throws -> Parameters {
        try map(query: query)
    }
}
