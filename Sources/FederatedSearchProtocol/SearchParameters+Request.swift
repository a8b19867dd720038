import FederatedSearchCore

extension SearchParameters {
    /// The parameters as a request's `params` object: what ``SearchParameters/decode(_:path:)``
    /// turns back into parameters equal to these. The filter parameters travel as they were
    /// given (`filters`, `facetFilters`, `numericFilters`, `tagFilters`), so the daemon parses
    /// the same conjunction. Defaults are left out, but for `hitsPerPage` and `page`.
    public func requestJSON() -> JSONObject {
        let d = SearchParameters()
        var o = JSONObject()
        func strings(_ xs: [String]) -> JSONValue { .array(xs.map { .string($0) }) }
        o["hitsPerPage"] = .number(Double(hitsPerPage))
        o["page"] = .number(Double(page))
        if !facets.isEmpty { o["facets"] = strings(facets) }
        if maxValuesPerFacet != d.maxValuesPerFacet { o["maxValuesPerFacet"] = .number(Double(maxValuesPerFacet)) }
        if let filters { o["filters"] = .string(filters) }
        if let facetFilters { o["facetFilters"] = facetFilters }
        if let numericFilters { o["numericFilters"] = numericFilters }
        if let tagFilters { o["tagFilters"] = tagFilters }
        if let filter, filters == nil, facetFilters == nil, numericFilters == nil, tagFilters == nil {
            // Built in code rather than decoded: the expression's own text parses back equal.
            o["filters"] = .string(filter.description)
        }
        if let v = attributesToRetrieve { o["attributesToRetrieve"] = strings(v) }
        if let v = attributesToHighlight { o["attributesToHighlight"] = strings(v) }
        if highlightPreTag != d.highlightPreTag { o["highlightPreTag"] = .string(highlightPreTag) }
        if highlightPostTag != d.highlightPostTag { o["highlightPostTag"] = .string(highlightPostTag) }
        if getRankingInfo { o["getRankingInfo"] = true }
        if queryType != d.queryType { o["queryType"] = .string(queryType.rawValue) }
        if let m = typoToleranceMode {
            switch m {
            case .enabled: o["typoTolerance"] = true
            case .disabled: o["typoTolerance"] = false
            case .min, .strict: o["typoTolerance"] = .string(m.rawValue)
            }
        } else if !typoTolerance {
            o["typoTolerance"] = false
        }
        if let v = offset { o["offset"] = .number(Double(v)) }
        if let v = length { o["length"] = .number(Double(v)) }
        if let v = attributesToSnippet { o["attributesToSnippet"] = strings(v) }
        if snippetEllipsisText != d.snippetEllipsisText { o["snippetEllipsisText"] = .string(snippetEllipsisText) }
        if !disjunctiveFacets.isEmpty { o["disjunctiveFacets"] = strings(disjunctiveFacets) }
        if sortFacetValuesBy != d.sortFacetValuesBy { o["sortFacetValuesBy"] = .string(sortFacetValuesBy.rawValue) }
        if !optionalWords.isEmpty { o["optionalWords"] = strings(optionalWords) }
        if removeWordsIfNoResults != d.removeWordsIfNoResults {
            o["removeWordsIfNoResults"] = .string(removeWordsIfNoResults.rawValue)
        }
        if matchingStrategy != d.matchingStrategy { o["matchingStrategy"] = .string(matchingStrategy.rawValue) }
        if advancedSyntax != d.advancedSyntax { o["advancedSyntax"] = .bool(advancedSyntax) }
        if let v = distinct { o["distinct"] = .number(Double(v)) }
        if let g = aroundLatLng {
            o["aroundLatLng"] = .string(JSONWriter.string(.number(g.lat)) + ", " + JSONWriter.string(.number(g.lng)))
        }
        if let v = aroundRadius { o["aroundRadius"] = .number(v) }
        if let v = minWordSizefor1Typo { o["minWordSizefor1Typo"] = .number(Double(v)) }
        if let v = minWordSizefor2Typos { o["minWordSizefor2Typos"] = .number(Double(v)) }
        if let v = restrictSearchableAttributes { o["restrictSearchableAttributes"] = strings(v) }
        return o
    }
}
