import FederatedSearchCore

/// A facet's merged counts and the sources that contributed to it.
public struct MergedFacet: Sendable, Equatable {
    /// The counts under the canonical name, most frequent first.
    public var counts: FacetCounts
    /// The names of the contributing sources, in order.
    public var indices: [String]

    public init(counts: FacetCounts, indices: [String]) {
        self.counts = counts
        self.indices = indices
    }
}

/// A numeric facet's merged statistics and the sources that contributed to them.
public struct MergedFacetStats: Sendable, Equatable {
    public var stats: FacetStats
    /// The names of the contributing sources, in order.
    public var indices: [String]

    public init(stats: FacetStats, indices: [String]) {
        self.stats = stats
        self.indices = indices
    }
}

/// The result of ``FacetMerge/merge(_:options:)``.
public struct MergedFacets: Sendable, Equatable {
    public var facets: [MergedFacet]
    public var stats: [MergedFacetStats]
    /// False when a source failed or timed out, or its counts were not exhaustive.
    public var exhaustive: Bool

    public init(facets: [MergedFacet], stats: [MergedFacetStats], exhaustive: Bool) {
        self.facets = facets
        self.stats = stats
        self.exhaustive = exhaustive
    }

    /// The merged facets as sent in the merged frame:
    /// `{"facets": {"brand": {"values": {"HP": 12}, "indices": ["products"]}},
    ///   "facets_stats": {"price": {"min": 1, "max": 9, "avg": 4, "sum": 40, "indices": [...]}},
    ///   "exhaustive": true}`.
    public func json() -> JSONObject {
        var facetsObject = JSONObject()
        for f in facets {
            var values = JSONObject()
            for v in f.counts.values { values.appendUnchecked(v.value, .number(Double(v.count))) }
            facetsObject.appendUnchecked(
                f.counts.attribute,
                [
                    "values": .object(values), "indices": .array(f.indices.map(JSONValue.string)),
                ])
        }
        var statsObject = JSONObject()
        for s in stats {
            statsObject.appendUnchecked(
                s.stats.attribute,
                [
                    "min": .number(s.stats.min), "max": .number(s.stats.max), "avg": .number(s.stats.avg),
                    "sum": .number(s.stats.sum), "indices": .array(s.indices.map(JSONValue.string)),
                ])
        }
        var o = JSONObject()
        o.appendUnchecked("facets", .object(facetsObject))
        o.appendUnchecked("facets_stats", .object(statsObject))
        o.appendUnchecked("exhaustive", .bool(exhaustive))
        return o
    }
}
