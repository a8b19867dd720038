import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol

/// How a request's answers are merged: the hit merge and, when asked for, the facet merge.
/// Decoded and validated on the loop before any work starts.
package struct MergePlan: Sendable {
    /// The hit merge; `explicit` when the request carried a `merge` object.
    package var options: MergeOptions
    package var explicit: Bool
    /// The facet merge, when the request carried `mergeFacets` or `facetAliases`.
    package var facets: FacetMergeOptions?

    package static func decode(_ request: SearchRequest) throws(SearchError) -> MergePlan {
        var plan = MergePlan(options: MergeOptions(limit: request.params.hitsPerPage), explicit: false, facets: nil)
        if let merge = request.merge {
            plan.options = try MergeOptions.decode(merge, path: "merge")
            plan.explicit = true
        }
        if request.mergeFacets != nil || request.facetAliases != nil {
            plan.facets = try FacetMergeOptions.decode(mergeFacets: request.mergeFacets, facetAliases: request.facetAliases)
        }
        return plan
    }

    /// Adjusts each source's query for the merge: with an explicit merge, every source is
    /// asked for its first `offset + limit` hits (and no more), so any page of the merged list
    /// is exact (an `offset`/`length` in the source's parameters, which would override
    /// `page`/`hitsPerPage`, is dropped), unless the strategy is `grouped`, which merges no
    /// hits (each source keeps its own paging); with a facet merge, each source counts its own attribute for an aliased facet
    /// and at least `maxValuesPerFacet` values, and a filter on the aliased name filters on
    /// that attribute (a source without it matches nothing, as for any attribute it lacks).
    package func apply(to sources: inout [FederatedSource]) throws(SearchError) {
        let names = sources.map(\.name)
        if explicit {
            try options.validate(sourceNames: names, path: "merge")
            let depth = options.fetchDepth
            guard depth <= SearchParameters.maxHitsPerPage else {
                throw SearchError(
                    .invalidField, "merge: offset + limit is \(depth); at most \(SearchParameters.maxHitsPerPage) hits can be merged")
            }
            for i in sources.indices where options.strategy != .grouped {
                sources[i].query.parameters.page = 0
                sources[i].query.parameters.hitsPerPage = depth
                sources[i].query.parameters.offset = nil
                sources[i].query.parameters.length = nil
            }
        }
        if let facets {
            for i in sources.indices {
                var p = sources[i].query.parameters
                let name = sources[i].name
                p.facets = p.facets.map { facets.aliases[$0]?[name] ?? $0 }
                p.disjunctiveFacets = p.disjunctiveFacets.map { facets.aliases[$0]?[name] ?? $0 }
                p.filter = p.filter?.renamingAttributes { facets.aliases[$0]?[name] ?? $0 }
                p.maxValuesPerFacet = max(p.maxValuesPerFacet, facets.maxValuesPerFacet)
                sources[i].query.parameters = p
            }
        }
    }
}
