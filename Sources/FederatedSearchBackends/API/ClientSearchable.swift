import FederatedSearchCore

/// Makes any ``SearchClient`` a `Searchable` the daemon can serve.
///
/// For each query it picks the mapping: ``SearchClient/map(query:disjunctiveFacets:refinements:)``
/// when `disjunctiveFacets` is non-empty and the filter refines one of them, else
/// ``SearchClient/map(query:)``. Then it calls the backend, maps the answer, fills in the
/// response fields the client left empty, and clamps each hit's score into [0, 1].
public struct ClientSearchable<Client: SearchClient>: LoopWaitingSearchable {
    /// The wrapped client.
    public let client: Client
    /// The searchable's name, reported as the results' `index` when the client leaves it empty.
    public let name: String

    public init(_ client: Client, name: String) {
        self.client = client
        self.name = name
    }

    public var description: SearchableDescription { client.description }

    public var waitsOnlyOnHTTPLoop: Bool { client.waitsOnlyOnHTTPLoop }

    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        let parameters = try Self.parameters(for: query, client: client)
        let raw = try await client.search(parameters)
        try Task.checkCancellation()
        var results = try client.map(results: raw)
        if results.query.isEmpty { results.query = query.text }
        if results.params.isEmpty { results.params = query.parameters.encodedForResponse(query: query.text) }
        if results.index.isEmpty { results.index = name }
        for i in results.hits.indices {
            let s = results.hits[i].rankingScore
            results.hits[i].rankingScore = s.isFinite ? min(1, max(0, s)) : 0
        }
        return results
    }

    /// The client's parameters for `query`, through the disjunctive mapping when it applies.
    static func parameters(for query: SearchQuery, client: Client) throws -> Client.Parameters {
        let disjunctive = Set(query.parameters.disjunctiveFacets)
        if !disjunctive.isEmpty {
            let refinements = FacetRefinements.extract(from: query.parameters.filter, facets: disjunctive)
            if !refinements.isEmpty {
                return try client.map(query: query, disjunctiveFacets: disjunctive, refinements: refinements)
            }
        }
        return try client.map(query: query)
    }
}

extension ClientSearchable: ReportsBackendStats where Client: ReportsBackendStats {
    public var backendStats: JSONObject { client.backendStats }
}
