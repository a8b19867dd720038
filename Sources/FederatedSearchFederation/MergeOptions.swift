import FederatedSearchCore

/// How the merged list of a federated request is built: the request's `merge` object.
///
/// ```json
/// "merge": {"strategy": "score", "offset": 10, "limit": 10,
///           "minPerIndex": {"movies": 2}, "maxPerIndex": 5, "distinctKey": "sku"}
/// ```
/// Per-index weights are not here: they come with each index entry (see ``SourceHits/weight``).
public struct MergeOptions: Sendable, Equatable {
    /// How the sources' ranked lists are combined.
    public enum Strategy: String, Sendable, Equatable, CaseIterable {
        /// k-way merge by `_rankingScore × weight`; ties by request order, then rank.
        case score
        /// Reciprocal rank fusion: Σ weight / (k + rank + 1) over the sources a document is in.
        case rrf
        /// Round robin by rank, in request order.
        case interleave
        /// No merged list: per-index frames only.
        case grouped
    }

    /// The largest accepted `limit`.
    public static let maxLimit = 1000
    /// The largest accepted `offset`.
    public static let maxOffset = 100_000

    public var strategy: Strategy
    /// Position of the first merged hit returned (0-based).
    public var offset: Int
    /// Number of merged hits returned; also the size of the window `minPerIndex` guarantees
    /// (the first `limit` positions of the merged order, i.e. the first page).
    public var limit: Int
    /// The RRF rank constant.
    public var k: Int
    /// Hits each source must at least have among the first `limit` merged positions.
    public var minPerIndex: IndexQuota
    /// Hits each source may have in the whole merged list at most.
    public var maxPerIndex: IndexQuota
    /// The attribute whose value identifies a document across sources: a hit whose value
    /// already appeared earlier in the merged order is dropped (and, for `rrf`, the value is
    /// the identity that fuses occurrences). Hits without the attribute are never dropped.
    public var distinctKey: String?

    public init(
        strategy: Strategy = .score, offset: Int = 0, limit: Int = 20, k: Int = 60,
        minPerIndex: IndexQuota = IndexQuota(), maxPerIndex: IndexQuota = IndexQuota(), distinctKey: String? = nil
    ) {
        self.strategy = strategy
        self.offset = offset
        self.limit = limit
        self.k = k
        self.minPerIndex = minPerIndex
        self.maxPerIndex = maxPerIndex
        self.distinctKey = distinctKey
    }

    /// How many hits each source must be asked for: `offset + limit`.
    public var fetchDepth: Int { offset + limit }

    /// Decodes the `merge` object; `path` is its JSON path in errors (usually `merge`).
    ///
    /// Unknown keys throw `unknown_field`; wrong types and out-of-range values throw
    /// `invalid_field` naming the member's path.
    public static func decode(_ object: JSONObject, path: String) throws(SearchError) -> MergeOptions {
        var r = FieldReader(object, path: path)
        var options = MergeOptions()
        if let s = try r.string("strategy") {
            guard let strategy = Strategy(rawValue: s) else {
                let names = Strategy.allCases.map(\.rawValue).joined(separator: ", ")
                throw SearchError(.invalidField, "\(r.path(of: "strategy")): expected one of \(names), got \"\(s)\"")
            }
            options.strategy = strategy
        }
        options.offset = try r.int("offset", in: 0...maxOffset) ?? options.offset
        options.limit = try r.int("limit", in: 0...maxLimit) ?? options.limit
        options.k = try r.int("k", in: 0...1_000_000) ?? options.k
        options.minPerIndex = try IndexQuota.decode(r.value("minPerIndex"), path: r.path(of: "minPerIndex"))
        options.maxPerIndex = try IndexQuota.decode(r.value("maxPerIndex"), path: r.path(of: "maxPerIndex"))
        if let key = try r.string("distinctKey") {
            guard !key.isEmpty else {
                throw SearchError(.invalidField, "\(r.path(of: "distinctKey")): expected a non-empty attribute name")
            }
            options.distinctKey = key
        }
        try r.rejectUnknownKeys()
        return options
    }

    /// Throws `invalid_field` when a quota names a source that is not in the request
    /// (`sourceNames` are the names the sources answer under); `path` is the `merge` path.
    public func validate(sourceNames: [String], path: String) throws(SearchError) {
        for (field, quota) in [("minPerIndex", minPerIndex), ("maxPerIndex", maxPerIndex)] {
            for name in quota.byName.keys.sorted() where !sourceNames.contains(name) {
                throw SearchError(.invalidField, "\(path).\(field).\(name): no index of the request answers as \(name)")
            }
        }
    }
}

/// A per-index quota: one value for every index, and values for named indices.
///
/// Decoded from an integer (every index) or an object of name → integer.
public struct IndexQuota: Sendable, Equatable {
    /// The quota of every index not named in ``byName``; nil for none.
    public var all: Int?
    /// Quotas of named indices (the names sources answer under).
    public var byName: [String: Int]

    public init(all: Int? = nil, byName: [String: Int] = [:]) {
        self.all = all
        self.byName = byName
    }

    /// The quota of the source answering as `name`, if any.
    public func value(for name: String) -> Int? { byName[name] ?? all }

    /// Whether no quota is set.
    public var isEmpty: Bool { all == nil && byName.isEmpty }

    /// The largest accepted quota.
    public static let maxValue = 1_000_000

    /// Decodes an integer or an object of integers; nil decodes to no quota.
    public static func decode(_ value: JSONValue?, path: String) throws(SearchError) -> IndexQuota {
        guard let value else { return IndexQuota() }
        switch value {
        case .number:
            return IndexQuota(all: try quota(value, path: path))
        case .object(let object):
            var byName: [String: Int] = [:]
            for e in object.entries { byName[e.key] = try quota(e.value, path: "\(path).\(e.key)") }
            return IndexQuota(byName: byName)
        default:
            throw SearchError(.invalidField, "\(path): expected an integer or an object of integers, got \(value.typeName)")
        }
    }

    private static func quota(_ value: JSONValue, path: String) throws(SearchError) -> Int {
        guard let i = value.intValue else {
            throw SearchError(.invalidField, "\(path): expected an integer, got \(value.typeName)")
        }
        guard (0...maxValue).contains(i) else {
            throw SearchError(.invalidField, "\(path): \(i) is out of range 0...\(maxValue)")
        }
        return i
    }
}
