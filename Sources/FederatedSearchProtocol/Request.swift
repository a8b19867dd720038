import FederatedSearchCore

/// One request line, decoded and validated.
public struct Request: Sendable, Equatable {
    /// The client's id for the request, echoed in every frame of the reply (nil when absent).
    public var id: String?
    /// What to do.
    public var operation: Operation

    public init(id: String?, operation: Operation) {
        self.id = id
        self.operation = operation
    }

    /// The operations of protocol v1.
    public enum Operation: Sendable, Equatable {
        case search(SearchRequest)
        /// Cancel the running request with this id on the same connection.
        case cancel(target: String)
        case ping
        case indices
        case stats
    }

    /// The operation's name on the wire.
    public var opName: String {
        switch operation {
        case .search: return "search"
        case .cancel: return "cancel"
        case .ping: return "ping"
        case .indices: return "indices"
        case .stats: return "stats"
        }
    }
}

/// A federated search: one query text sent to several indices.
public struct SearchRequest: Sendable, Equatable {
    /// The query text.
    public var query: String
    /// The indices to search, in request order (ties in the merge go to the earlier one);
    /// nil means every configured index.
    public var indices: [String]?
    /// Parameters for every index.
    public var params: SearchParameters
    /// The raw `params` object, so per-index overrides can be applied on top of it.
    public var rawParams: JSONObject
    /// Per-index parameter overrides, applied over `params`.
    public var perIndex: [String: JSONObject]
    /// The request's deadline in milliseconds; nil means each index's configured default.
    public var timeoutMs: Int?

    public init(
        query: String, indices: [String]? = nil, params: SearchParameters = SearchParameters(),
        rawParams: JSONObject = JSONObject(), perIndex: [String: JSONObject] = [:], timeoutMs: Int? = nil
    ) {
        self.query = query
        self.indices = indices
        self.params = params
        self.rawParams = rawParams
        self.perIndex = perIndex
        self.timeoutMs = timeoutMs
    }

    /// The parameters for one index: `params` with that index's overrides applied.
    public func parameters(for index: String) throws(SearchError) -> SearchParameters {
        guard let overrides = perIndex[index] else { return params }
        var merged = rawParams
        for e in overrides.entries { merged[e.key] = e.value }
        return try SearchParameters.decode(merged, path: "perIndex.\(index)")
    }
}
