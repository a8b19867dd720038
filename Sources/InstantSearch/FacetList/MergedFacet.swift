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
            let values = (o["values"]?.objectValue?.entries ?? []).compactMap { v in v.value.intValue.map { Facet(value: v.key, count: $0) }
            }
            out[e.key] = MergedFacet(values: values, indices: (o["indices"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        return out
    }
}
