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
        /// Re-read the daemon's config (admin: root or the daemon's own user).
        case reload
        /// Facet values of one index matching a prefix, counted under a query and filters.
        case searchForFacetValues(FacetValuesRequest)
        /// A write, a read of stored documents or settings, or the creation or deletion of one
        /// durable index.
        case index(String, IndexOperation)
        /// A search answered as `search` is, then kept: `update` frames follow whenever an
        /// acknowledged write changes its answer, at most one per `minIntervalMs`.
        case subscribe(SearchRequest, minIntervalMs: Int)
        /// Ends this connection's subscription (or watch) with this id.
        case unsubscribe(target: String)
        /// Answered `watching`, then a `changed` frame each time one of these indices changes
        /// (a write group published, a change announced, a reload), until `unsubscribe`.
        case watch(indices: [String])
    }

    /// The operation's name on the wire.
    public var opName: String {
        switch operation {
        case .search: return "search"
        case .cancel: return "cancel"
        case .ping: return "ping"
        case .indices: return "indices"
        case .stats: return "stats"
        case .reload: return "reload"
        case .searchForFacetValues: return "searchForFacetValues"
        case .index(_, let op): return op.opName
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .watch: return "watch"
        }
    }
}

/// One source of a federated search: an index, the name it answers under, and its overrides.
///
/// `indices` entries are index names or objects
/// `{"index": "movies", "as": "classics", "params": {...}, "weight": 2, "timeoutMs": 100}`,
/// so one index can feed two columns of a dashboard under two names.
public struct SearchTarget: Sendable, Equatable {
    /// The configured index to search.
    public var index: String
    /// The name this source answers under in frames (`as`, else the index name). Unique.
    public var name: String
    /// Parameter overrides for this source, applied last.
    public var params: JSONObject?
    /// The weight of this source's scores in a `score` or `rrf` merge (default 1).
    public var weight: Double
    /// This source's deadline, overriding the request's.
    public var timeoutMs: Int?
    /// The JSON path of the entry, for error messages (not part of equality).
    public var path: String

    public static func == (a: SearchTarget, b: SearchTarget) -> Bool {
        a.index == b.index && a.name == b.name && a.params == b.params && a.weight == b.weight && a.timeoutMs == b.timeoutMs
    }

    public init(
        index: String, name: String? = nil, params: JSONObject? = nil, weight: Double = 1, timeoutMs: Int? = nil,
        path: String = "indices"
    ) {
        self.index = index
        self.name = name ?? index
        self.params = params
        self.weight = weight
        self.timeoutMs = timeoutMs
        self.path = path
    }
}

/// A federated search: one query text sent to several indices.
public struct SearchRequest: Sendable, Equatable {
    /// The query text.
    public var query: String
    /// The sources, in request order (ties in the merge go to the earlier one); nil means
    /// every configured index.
    public var targets: [SearchTarget]?
    /// Parameters for every index.
    public var params: SearchParameters
    /// The raw `params` object, so per-index overrides can be applied on top of it.
    public var rawParams: JSONObject
    /// Per-source parameter overrides (by source name), applied over `params`.
    public var perIndex: [String: JSONObject]
    /// The request's deadline in milliseconds; nil means each index's configured default.
    public var timeoutMs: Int?
    /// A client-chosen session: a newer `seq` in the same session supersedes older requests.
    public var session: String?
    /// The request's sequence number within its session.
    public var seq: Int?
    /// The raw `merge` object (strategy, offset, limit, quotas), validated by the daemon.
    public var merge: JSONObject?
    /// The raw `mergeFacets` object, validated by the daemon.
    public var mergeFacets: JSONObject?
    /// The raw `facetAliases` object, validated by the daemon.
    public var facetAliases: JSONObject?
    /// What the requester's credentials impose on every source's parameters (a secured API
    /// key's filters and search parameters). Set by a transport, never sent on the wire.
    public var restriction: SearchRestriction?
    /// These members but the query, session and seq, already encoded (a cache for
    /// ``Request/line()``, not part of the request's value: see ``EncodedSearchMembers``).
    public var encodedMembers = EncodedSearchMembers()

    public init(
        query: String, targets: [SearchTarget]? = nil, params: SearchParameters = SearchParameters(),
        rawParams: JSONObject = JSONObject(), perIndex: [String: JSONObject] = [:], timeoutMs: Int? = nil,
        session: String? = nil, seq: Int? = nil, merge: JSONObject? = nil, mergeFacets: JSONObject? = nil,
        facetAliases: JSONObject? = nil
    ) {
        self.query = query
        self.targets = targets
        self.params = params
        self.rawParams = rawParams
        self.perIndex = perIndex
        self.timeoutMs = timeoutMs
        self.session = session
        self.seq = seq
        self.merge = merge
        self.mergeFacets = mergeFacets
        self.facetAliases = facetAliases
    }

    /// The index names searched, in order (nil: all).
    public var indices: [String]? { targets?.map(\.index) }

    /// The parameters for one source: the index's `defaults` (its settings that are search
    /// parameters), `params`, then `perIndex[name]`, then the entry's own `params`, each
    /// overlaying the previous.
    public func parameters(for target: SearchTarget, defaults: JSONObject = [:]) throws(SearchError) -> SearchParameters {
        let overrides = perIndex[target.name]
        guard overrides != nil || target.params != nil || !defaults.isEmpty || restriction != nil else { return params }
        var merged = defaults
        for e in rawParams { merged[e.key] = e.value }
        for e in overrides ?? [:] { merged[e.key] = e.value }
        for e in target.params ?? [:] { merged[e.key] = e.value }
        let path = target.params != nil ? "\(target.path).params" : "perIndex.\(target.name)"
        guard let restriction else { return try SearchParameters.decode(merged, path: path) }
        return try restriction.apply(to: merged, path: path)
    }

    /// The parameters for an index searched under its own name.
    public func parameters(for index: String) throws(SearchError) -> SearchParameters {
        try parameters(for: SearchTarget(index: index))
    }
}

/// What a requester's credentials impose on a search, whatever it asks: a filter ANDed with
/// the request's, and search parameters that replace the request's (a secured API key's
/// restrictions).
public struct SearchRestriction: Sendable, Equatable {
    /// ANDed with the request's filters.
    public var filter: FilterExpression?
    /// Laid over the request's parameters.
    public var parameters: JSONObject

    public init(filter: FilterExpression?, parameters: JSONObject) {
        self.filter = filter
        self.parameters = parameters
    }

    /// Decoded parameters under this restriction (its parameters were checked when it was made).
    public func apply(to given: SearchParameters) throws(SearchError) -> SearchParameters {
        var p = given
        try p.apply(parameters, path: "restriction", ignoringUnknownKeys: true)
        p.filter = FilterExpression.allOf([p.filter, filter])
        return p
    }

    /// The parameters of `given` (a `params` object) under this restriction.
    public func apply(to given: JSONObject, path: String) throws(SearchError) -> SearchParameters {
        try apply(to: SearchParameters.decode(given, path: path, ignoringUnknownKeys: true))
    }
}

/// `searchForFacetValues`: the values of `facetName` in `index` that start with `facetQuery`,
/// counted over the documents matching `query` and `params` (Algolia's operation of that name).
public struct FacetValuesRequest: Sendable, Equatable {
    public var index: String
    public var facetName: String
    public var facetQuery: String
    public var query: String
    public var params: SearchParameters
    /// At most this many values (default 10, at most 100).
    public var maxFacetHits: Int

    public init(
        index: String, facetName: String, facetQuery: String, query: String = "",
        params: SearchParameters = SearchParameters(), maxFacetHits: Int = 10
    ) {
        self.index = index
        self.facetName = facetName
        self.facetQuery = facetQuery
        self.query = query
        self.params = params
        self.maxFacetHits = maxFacetHits
    }
}

/// What a request asks of one durable (embedded, with a `dataDir`) index.
public enum IndexOperation: Sendable, Equatable {
    /// `addDocuments`, `partialUpdateDocuments`, `deleteDocuments`, `clearIndex`: one atomic batch.
    case documents(op: String, [DocumentChange])
    /// Delete the documents passing these filters (one atomic batch).
    case deleteBy(SearchParameters)
    /// Lay these settings over the index's (a null value resets that key to the config's).
    case setSettings(JSONObject)
    /// Stored documents by id.
    case getDocuments([String])
    /// The settings in force.
    case getSettings
    /// Create an index (admin only): an empty durable embedded index with these settings, or,
    /// with `searchable` (a searchable's object as in the config file, `backend` first), an
    /// index on that backend, whose storage is made unless it exists (a Typesense collection).
    case createIndex(settings: JSONObject, searchable: JSONObject? = nil)
    /// Delete an index made by `createIndex`, with its store (admin only).
    case deleteIndex

    /// The operation's name on the wire.
    public var opName: String {
        switch self {
        case .documents(let op, _): return op
        case .deleteBy: return "deleteBy"
        case .setSettings: return "setSettings"
        case .getDocuments: return "getDocuments"
        case .getSettings: return "getSettings"
        case .createIndex: return "createIndex"
        case .deleteIndex: return "deleteIndex"
        }
    }
}

/// One change of a write batch.
public enum DocumentChange: Sendable, Equatable {
    /// Insert or replace the document with its `objectID`.
    case upsert(JSONObject)
    /// Delete the document with this id.
    case delete(String)
    /// Delete every document.
    case clear
    /// Set some attributes of the document with this `objectID`, keeping the others (a
    /// missing document is created with them).
    case merge(JSONObject)
    /// As `merge`, but a missing document stays missing (Algolia's `partialUpdateObjectNoCreate`).
    case mergeExisting(JSONObject)
}
