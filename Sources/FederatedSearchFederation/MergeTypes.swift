import FederatedSearchCore

/// One source's answer as the merge sees it: its hits in its own rank order.
public struct SourceHits: Sendable {
    /// The name the source answers under (the index name, or its `as` alias).
    public var name: String
    /// The source's position in the request; earlier sources win ties.
    public var position: Int
    /// The source's weight (finite and positive, as requests are checked; 1 by default).
    public var weight: Double
    /// The source's hits in its rank order, the first at rank 0.
    public var hits: [Hit]

    public init(name: String, position: Int, weight: Double = 1, hits: [Hit]) {
        self.name = name
        self.position = position
        self.weight = weight
        self.hits = hits
    }
}

/// One hit of the merged list and where it came from (the `_federation` annotation).
public struct MergedEntry: Sendable, Equatable {
    /// The name of the source the hit comes from.
    public var name: String
    /// That source's position in the request.
    public var sourcePosition: Int
    /// The hit's rank within that source, from 0 (an index into the source's hits).
    public var rank: Int
    /// The value the merge ordered by: `_rankingScore × weight` for `score` and `interleave`
    /// (for `interleave` informative only), the fused RRF sum for `rrf`.
    public var weightedScore: Double
    public var hit: Hit

    public init(name: String, sourcePosition: Int, rank: Int, weightedScore: Double, hit: Hit) {
        self.name = name
        self.sourcePosition = sourcePosition
        self.rank = rank
        self.weightedScore = weightedScore
        self.hit = hit
    }
}

/// The identity of a hit's `distinctKey` value: equal JSON values give equal keys.
enum DistinctValue: Hashable {
    case string(String)
    case number(Double)
    case json(String)

    /// The key of `hit`'s value for `attribute` (a top-level attribute, or `objectID`), or nil
    /// when it has none (absent or null).
    init?(_ hit: Hit, attribute: String) {
        if attribute == "objectID" {
            self = .string(hit.objectID)
            return
        }
        switch hit.attribute(attribute) {
        case nil, .null?: return nil
        case .string(let s)?: self = .string(s)
        case .number(let n)?: self = .number(n)
        case let v?: self = .json(JSONWriter.string(v))
        }
    }
}
