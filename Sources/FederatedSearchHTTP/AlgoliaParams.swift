import FederatedSearchCore

/// Search parameters as Algolia's clients send them, turned into the daemon's: members of a
/// JSON object (typed), and a URL-encoded `params` string (every value a string, typed here
/// by the parameter it sets). Parameters the daemon does not know are ignored, as Algolia does.
package enum AlgoliaParams {
    /// Parameters whose value is text even when it reads as a number or `true`.
    static let textKeys: Set<String> = [
        "query", "filters", "highlightPreTag", "highlightPostTag", "snippetEllipsisText", "queryType", "aroundLatLng",
        "sortFacetValuesBy", "removeWordsIfNoResults", "matchingStrategy", "facetQuery", "userToken",
    ]
    /// Parameters holding a list, sent as JSON (`["a","b"]`) or comma-separated (`a,b`).
    static let listKeys: Set<String> = [
        "facets", "attributesToRetrieve", "attributesToHighlight", "attributesToSnippet", "restrictSearchableAttributes",
        "disjunctiveFacets",
    ]

    /// The members of a URL-encoded parameter string, typed.
    package static func form(_ text: String) -> JSONObject {
        var o = JSONObject()
        for (key, value) in URLForm.pairs(text) where !key.isEmpty {
            o[key] = typed(key, value)
        }
        return o
    }

    /// One form value as the JSON value it stands for; nil for an empty value (Algolia's
    /// clients send `tagFilters=` for none).
    static func typed(_ key: String, _ value: String) -> JSONValue? {
        if value.isEmpty { return nil }
        if textKeys.contains(key) { return .string(value) }
        let parsed = try? JSONParser.parse(value)
        if listKeys.contains(key) {
            if case .array? = parsed { return parsed }
            return .array(value.split(separator: ",").map { .string(String($0)) })
        }
        switch parsed {
        case .array?, .number?, .bool?, .object?: return parsed
        case .string?, .null?, nil: return .string(value)
        }
    }

    /// A search's query text and parameters, from an object of parameters (`params` inside it,
    /// a string or an object, laid over the rest). `skipping` names members that are not
    /// parameters (`indexName`, `type`, ...).
    package static func decode(
        _ object: JSONObject, path: String, skipping: Set<String> = []
    ) throws(SearchError) -> (query: String, raw: JSONObject, params: SearchParameters) {
        var merged = JSONObject()
        for e in object where !skipping.contains(e.key) && e.key != "params" { merged[e.key] = e.value }
        switch object["params"] {
        case .string(let s)?: for e in form(s) { merged[e.key] = e.value }
        case .object(let o)?: for e in o { merged[e.key] = e.value }
        case .null?, nil: break
        case let other?: throw SearchError(.invalidField, "\(path).params: expected a string or an object, got \(other.typeName)")
        }
        var query = ""
        switch merged["query"] {
        case .string(let q)?: query = q
        case .number(let n)?: query = JSONWriter.string(.number(n))
        case .null?, nil: break
        case let other?: throw SearchError(.invalidField, "\(path).query: expected a string, got \(other.typeName)")
        }
        merged["query"] = nil
        // Absent from the daemon's parameters, or meant for another member of the request.
        for key in ["facetQuery", "facetName", "maxFacetHits"] { merged[key] = nil }
        var params = SearchParameters()
        // The raw parameters keep only those the daemon knows: they are decoded again, strictly,
        // under an index's query defaults.
        for key in try params.apply(merged, path: path, ignoringUnknownKeys: true) { merged[key] = nil }
        return (query, merged, params)
    }
}
