import Foundation
import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Facets: counts over all matches (not only the page), sorted by count then value,
/// `*`, maxValuesPerFacet, stats for numbers, disjunctive facets, facet value search.
@Suite struct FacetTests {
    let docs = """
        {"objectID": "1", "title": "red shirt", "brand": "Acme", "genres": ["Drama", "Comedy"], "price": 10}
        {"objectID": "2", "title": "red hat", "brand": "Bolt", "genres": ["Drama"], "price": 20}
        {"objectID": "3", "title": "blue shirt", "brand": "Acme", "genres": ["Horror"], "price": 30}
        {"objectID": "4", "title": "red scarf", "brand": "Crux", "genres": ["Comedy"], "price": 40}
        """

    func index() throws -> EmbeddedIndex {
        try makeIndex(
            #"{"searchableAttributes": ["title"], "attributesForFaceting": ["brand", "searchable(genres)", "filterOnly(price)"]}"#, docs)
    }

    @Test func countsOverAllMatchesNotOnlyThePage() throws {
        let r = try search(index(), "red", #"{"facets": ["brand", "genres"], "hitsPerPage": 1}"#)
        #expect(r.hits.count == 1)
        #expect(counts(r, "brand") == ["Acme": 1, "Bolt": 1, "Crux": 1])
        #expect(counts(r, "genres") == ["Drama": 2, "Comedy": 2])
    }

    @Test func aFieldWithOneValuePerDocumentCountsLikeAnyOther() throws {
        // brand: one value each (counted from docValues alone); genres: one document has two.
        let whole = try index()
        let brand = try #require(whole.snapshot.facetByName["brand"])
        let genres = try #require(whole.snapshot.facetByName["genres"])
        #expect(whole.snapshot.facets[brand].oneValuePerDocument)
        #expect(!whole.snapshot.facets[genres].oneValuePerDocument)
        // A document without a brand, or with two, makes it a field like any other.
        let uneven = try makeIndex(
            #"{"attributesForFaceting": ["brand"]}"#,
            """
            {"objectID": "1", "title": "red shirt", "brand": "Acme"}
            {"objectID": "2", "title": "red hat"}
            {"objectID": "3", "title": "red scarf", "brand": ["Acme", "Bolt"]}
            """)
        let unevenBrand = try #require(uneven.snapshot.facetByName["brand"])
        #expect(!uneven.snapshot.facets[unevenBrand].oneValuePerDocument)
        #expect(counts(try search(uneven, "red", #"{"facets": ["brand"]}"#), "brand") == ["Acme": 2, "Bolt": 1])
        // Disjunctive counts take the same path.
        let r = try search(whole, "", #"{"facets": ["brand"], "disjunctiveFacets": ["brand"], "facetFilters": [["brand:Acme"]]}"#)
        #expect(r.hits.count == 2)
        #expect(counts(r, "brand") == ["Acme": 2, "Bolt": 1, "Crux": 1])
    }

    @Test func sortedByCountThenValueAndLimited() throws {
        let r = try search(index(), "", #"{"facets": ["*"], "maxValuesPerFacet": 2}"#)
        #expect(r.facets.map(\.attribute) == ["brand", "genres"])  // filterOnly is not counted
        #expect(r.facets[0].values.map(\.value) == ["Acme", "Bolt"])
        #expect(r.facets[1].values.map(\.value) == ["Comedy", "Drama"])
        let alpha = try search(index(), "", #"{"facets": ["brand"], "sortFacetValuesBy": "alpha"}"#)
        #expect(alpha.facets[0].values.map(\.value) == ["Acme", "Bolt", "Crux"])
    }

    @Test func statsForNumericFacets() throws {
        let idx = try makeIndex(#"{"attributesForFaceting": ["price"]}"#, docs)
        let r = try search(idx, "shirt", #"{"facets": ["price"]}"#)
        #expect(r.facetsStats == [FacetStats(attribute: "price", min: 10, max: 30, avg: 20, sum: 40)])
        #expect(counts(r, "price") == ["10": 1, "30": 1])
    }

    @Test func disjunctiveFacetIgnoresItsOwnRefinements() throws {
        let r = try search(
            index(), "", #"{"facets": ["genres"], "disjunctiveFacets": ["brand"], "facetFilters": [["brand:Acme", "brand:Bolt"]]}"#)
        #expect(Set(ids(r)) == ["1", "2", "3"])
        #expect(counts(r, "brand") == ["Acme": 2, "Bolt": 1, "Crux": 1])
        #expect(counts(r, "genres") == ["Drama": 2, "Comedy": 1, "Horror": 1])
        // Other filters still apply to the disjunctive counts.
        let r2 = try search(index(), "", #"{"disjunctiveFacets": ["brand"], "filters": "brand:Acme AND genres:Drama"}"#)
        #expect(ids(r2) == ["1"])
        #expect(counts(r2, "brand") == ["Acme": 1, "Bolt": 1])
    }

    @Test func searchForFacetValues() throws {
        let idx = try index()
        let all = try idx.searchForFacetValues(attribute: "genres", prefix: "d", query: SearchQuery(text: ""), maxValues: 10)
        #expect(all.map(\.value) == ["Drama"] && all.map(\.count) == [2])
        let underQuery = try idx.searchForFacetValues(attribute: "genres", prefix: "", query: SearchQuery(text: "shirt"), maxValues: 10)
        #expect(underQuery.map(\.value) == ["Comedy", "Drama", "Horror"])
        #expect(throws: SearchError.self) {
            try idx.searchForFacetValues(attribute: "title", prefix: "", query: SearchQuery(text: ""), maxValues: 10)
        }
    }

    /// A refinement counts as the disjunctive facet's own whichever parameter carries it: an
    /// unrelated `filters` beside `facetFilters` used to nest them under one more AND, and the
    /// refinement then applied to its own facet's counts.
    /// A facet hit's `highlighted`: each word of the value that a word of the facet query
    /// starts (folded: case and accents) is marked over the typed length, with the given tags.
    @Test func facetValueHighlightMarksEveryMatchedWordPrefixWithTheGivenTags() throws {
        let idx = try makeIndex(#"{"attributesForFaceting": ["genres"]}"#, #"{"objectID": "1", "genres": ["x"]}"#)
        #expect(
            idx.highlightFacetValue("Science Fiction", facetQuery: "sci fi", preTag: "<b>", postTag: "</b>")
                == "<b>Sci</b>ence <b>Fi</b>ction")
        #expect(
            idx.highlightFacetValue("Drama", facetQuery: "dr", preTag: "__ais-highlight__", postTag: "__/ais-highlight__")
                == "__ais-highlight__Dr__/ais-highlight__ama")
        #expect(idx.highlightFacetValue("Émile et Éloïse", facetQuery: "EM elo", preTag: "[", postTag: "]") == "[Ém]ile et [Élo]ïse")
        #expect(idx.highlightFacetValue("Comedy", facetQuery: "", preTag: "[", postTag: "]") == "Comedy")
        #expect(idx.highlightFacetValue("Comedy", facetQuery: "dra", preTag: "[", postTag: "]") == "Comedy")
        #expect(idx.highlightFacetValue("Film-Noir", facetQuery: "noir", preTag: "[", postTag: "]") == "Film-[Noir]")
    }

    @Test func disjunctiveCountsIgnoreRefinementsNestedWithOtherFilters() throws {
        let r = try search(
            index(), "", #"{"disjunctiveFacets": ["brand"], "filters": "price < 100", "facetFilters": ["brand:Acme", "genres:Comedy"]}"#)
        #expect(ids(r) == ["1"])
        #expect(counts(r, "brand") == ["Acme": 1, "Crux": 1])
        let alone = try search(index(), "", #"{"disjunctiveFacets": ["brand"], "facetFilters": ["brand:Acme", "genres:Comedy"]}"#)
        #expect(counts(alone, "brand") == counts(r, "brand"))
    }

}

/// `facets_stats` sums do not depend on the order the values are added in.
struct ExactSumTests {
    func sum(_ values: [Double]) -> Double {
        var s = ExactSum()
        for v in values { s.add(v) }
        return s.value
    }

    @Test func theSumIsCorrectlyRoundedWhateverTheOrder() {
        #expect(sum(Array(repeating: 0.1, count: 10)) == 1.0, "ten tenths, as math.fsum gives")
        #expect(sum([1e100, 1.0, -1e100]) == 1.0)
        #expect(sum([1e16, 1.0, 1e-16]) == 10_000_000_000_000_002)
        var g = SystemRandomNumberGenerator()
        let values = (0..<2000).map { _ in
            Double(Int.random(in: -1_000_000...1_000_000, using: &g)) / 100 * pow(10, Double(Int.random(in: -3...3, using: &g)))
        }
        let reference = sum(values)
        for _ in 0..<10 { #expect(sum(values.shuffled(using: &g)) == reference) }
    }

    @Test func partSumsAddUpToTheWhole() {
        var g = SystemRandomNumberGenerator()
        let values = (0..<500).map { _ in Double(Int.random(in: 1...4000, using: &g)) / 100 }
        var whole = ExactSum()
        for v in values { whole.add(v) }
        var parts = [ExactSum(), ExactSum(), ExactSum()]
        for (i, v) in values.enumerated() { parts[i % 3].add(v) }
        var joined = ExactSum()
        for p in parts.reversed() { joined.add(p) }
        #expect(joined.value == whole.value)
    }

    @Test func infinitiesAndNaNAreSummedApart() {
        #expect(sum([1, .infinity, 2]) == .infinity)
        #expect(sum([.infinity, -.infinity]).isNaN)
        #expect(sum([]) == 0)
    }
}
