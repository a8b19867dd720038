import FederatedSearchCore
import FederatedSearchProtocol

/// One facet of the merged list (the request's `mergeFacets`): counts summed per value across
/// the indices that have it (under their own attribute names, through `facetAliases`).
public struct MergedFacet: Sendable, Equatable {
    /// The values, by count then value.
    public let values: [Facet]
    /// The indices that contributed.
    public let indices: [String]
}

extension MergedResults {
    /// The merged facets by name, typed (they arrive in ``extra``'s `facets`).
    public var mergedFacets: [String: MergedFacet] {
        var out: [String: MergedFacet] = [:]
        for e in extra["facets"]?.objectValue?.entries ?? [] {
            guard let o = e.value.objectValue else { continue }
            let values = (o["values"]?.objectValue?.entries ?? []).compactMap { v in v.value.intValue.map { Facet(value: v.key, count: $0) } }
            out[e.key] = MergedFacet(values: values, indices: (o["indices"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        return out
    }
}

extension FacetListInteractor {
    /// Shows the counts of `attribute` merged across `searcher`'s indices: the searcher asks
    /// for merged facets (`mergeFacets`, if it did not), each source that can filter on the
    /// attribute (or its alias, ``FederatedSearcher/facetAliases``) counts it, and the values
    /// come from the merged frame. Connected to the searcher's filter state with the same
    /// attribute, a value toggles the filter on every index that has it.
    @discardableResult
    public func connectMergedFacets(of searcher: FederatedSearcher, attribute: String) -> any Connection {
        let c = ClosureConnection(connect: { [weak self, weak searcher] connection in
            guard self != nil, let searcher else { return }
            if searcher.mergeFacets == nil { searcher.mergeFacets = ["maxValuesPerFacet": 100] }
            for source in searcher.sources {
                let own = searcher.facetAliases[attribute]?[source.name] ?? attribute
                guard source.filterableAttributes?.contains(own) ?? true else { continue }
                if !source.parameters.facets.contains(own) && !source.parameters.facets.contains("*") {
                    source.parameters.facets.append(own)
                }
            }
            searcher.onMergedResults.subscribePast(with: connection) { [weak self] _, merged in
                self?.update(merged.mergedFacets[attribute]?.values ?? [], exhaustive: merged.extra["exhaustive"]?.boolValue ?? true)
            }
        }, disconnect: { [weak searcher] connection in
            searcher?.onMergedResults.cancelSubscription(for: connection)
        })
        connections.append(c)
        return c
    }
}
