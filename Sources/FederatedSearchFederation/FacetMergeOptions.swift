import FederatedSearchCore

/// How facets are merged across sources: the request's `mergeFacets` and `facetAliases`.
///
/// ```json
/// "mergeFacets": {"maxValuesPerFacet": 10},
/// "facetAliases": {"brand": {"products": "supplier", "phones": "brand"}}
/// ```
/// An alias maps a canonical facet name to, per source (the name it answers under), the
/// attribute that source calls it. An attribute with no alias merges under its own name.
public struct FacetMergeOptions: Sendable, Equatable {
    /// Values kept per merged facet, most frequent first.
    public var maxValuesPerFacet: Int
    /// Canonical name → (source name → that source's attribute).
    public var aliases: [String: [String: String]]

    /// The largest accepted `maxValuesPerFacet`.
    public static let maxValues = 1000

    public init(maxValuesPerFacet: Int = 10, aliases: [String: [String: String]] = [:]) {
        self.maxValuesPerFacet = maxValuesPerFacet
        self.aliases = aliases
    }

    /// Decodes `mergeFacets` and `facetAliases` (either may be absent); the paths name them in
    /// errors. Unknown keys in `mergeFacets` throw `unknown_field`; an alias whose source
    /// attribute is already claimed by another canonical name throws `invalid_field`.
    public static func decode(
        mergeFacets: JSONObject?, facetAliases: JSONObject?,
        mergeFacetsPath: String = "mergeFacets", facetAliasesPath: String = "facetAliases"
    ) throws(SearchError) -> FacetMergeOptions {
        var options = FacetMergeOptions()
        if let mergeFacets {
            var r = FieldReader(mergeFacets, path: mergeFacetsPath)
            options.maxValuesPerFacet = try r.int("maxValuesPerFacet", in: 1...maxValues) ?? options.maxValuesPerFacet
            try r.rejectUnknownKeys()
        }
        guard let facetAliases else { return options }
        var claimed: [String: String] = [:]  // "source\u{0}attribute" → canonical
        for canonical in facetAliases.entries {
            let path = "\(facetAliasesPath).\(canonical.key)"
            guard case .object(let bySource) = canonical.value else {
                throw SearchError(.invalidField, "\(path): expected an object of index → attribute, got \(canonical.value.typeName)")
            }
            var map: [String: String] = [:]
            for e in bySource.entries {
                guard case .string(let attribute) = e.value else {
                    throw SearchError(.invalidField, "\(path).\(e.key): expected a string, got \(e.value.typeName)")
                }
                guard !attribute.isEmpty else {
                    throw SearchError(.invalidField, "\(path).\(e.key): expected a non-empty attribute name")
                }
                let slot = "\(e.key)\u{0}\(attribute)"
                if let other = claimed[slot] {
                    throw SearchError(.invalidField, "\(path).\(e.key): \(e.key).\(attribute) already merges under \(other)")
                }
                claimed[slot] = canonical.key
                map[e.key] = attribute
            }
            options.aliases[canonical.key] = map
        }
        return options
    }

    /// The name `source`'s `attribute` merges under, or nil when it is left out: when an alias
    /// maps this canonical name to another of the source's attributes, the explicit alias wins
    /// and the attribute that merely shares the name is not merged.
    public func canonicalName(source: String, attribute: String) -> String? {
        for (canonical, bySource) in aliases where bySource[source] == attribute { return canonical }
        if let mapped = aliases[attribute]?[source], mapped != attribute { return nil }
        return attribute
    }
}
