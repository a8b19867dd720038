/// The names of Algolia's index settings that ``IndexSettings`` does not decode into fields of
/// its own: those that are search parameters too, applied as the index's query defaults, and
/// those stored only (kept and echoed by `getSettings`, with no effect on this engine).
/// docs/HTTP.md lists both. Any other unknown name is still refused, so a misspelt setting is
/// never silently ignored.
public enum AlgoliaSettingNames {
    /// Search parameters that are also index settings: an index's value is the default of
    /// every search of it, and a request's own value wins.
    public static let queryDefaults: [String] = [
        "hitsPerPage", "attributesToRetrieve", "attributesToHighlight", "attributesToSnippet", "highlightPreTag",
        "highlightPostTag", "snippetEllipsisText", "maxValuesPerFacet", "sortFacetValuesBy", "queryType",
        "removeWordsIfNoResults", "advancedSyntax", "optionalWords",
    ]

    /// Settings accepted and stored with no effect here (features this engine does not have,
    /// or that belong to Algolia's service: replicas, analytics, personalization, rules).
    public static let storedOnly: Set<String> = [
        "replicas", "primary", "indexLanguages", "renderingContent", "relevancyStrictness", "restrictHighlightAndSnippetArrays",
        "allowTyposOnNumericTokens", "disableTypoToleranceOnAttributes", "disableTypoToleranceOnWords",
        "attributesToTransliterate", "camelCaseAttributes", "decompoundedAttributes", "keepDiacriticsOnCharacters",
        "customNormalization", "decompoundQuery", "enableRules", "enablePersonalization", "advancedSyntaxFeatures",
        "disablePrefixOnAttributes", "disableExactOnAttributes", "exactOnSingleWordQuery", "alternativesAsExact",
        "allowCompressionOfIntegerArray", "replaceSynonymsInHighlight", "minProximity", "responseFields", "maxFacetHits",
        "attributeCriteriaComputedByMinProximity", "userData", "enableReRanking", "reRankingApplyFilter", "mode",
        "semanticSearch", "searchableAttributesWithoutPrefix", "placeholders",
    ]
}
