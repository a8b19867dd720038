import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Filters: Algolia syntax evaluated on per-value document sets; attributes must be
/// faceting attributes.
@Suite struct FilterTests {
    let docs = """
        {"objectID": "1", "title": "a", "genres": ["Drama"], "year": 1999, "supplier": "HP", "inStock": true, "_tags": ["new"]}
        {"objectID": "2", "title": "a", "genres": ["Drama", "Comedy"], "year": 2005, "supplier": "Dell", "inStock": false}
        {"objectID": "3", "title": "a", "genres": ["Comedy"], "year": 1995, "supplier": "HP Inc", "inStock": true, "_tags": ["old"]}
        {"objectID": "4", "title": "a", "genres": ["Drama"], "year": 2010, "supplier": "Dell", "inStock": true}
        """

    func index() throws -> EmbeddedIndex {
        try makeIndex(#"{"attributesForFaceting": ["genres", "year", "filterOnly(supplier)", "inStock"]}"#, docs)
    }

    func matching(_ params: String) throws -> Set<String> { Set(ids(try search(index(), "", params))) }

    @Test func booleanCombinations() throws {
        #expect(try matching(#"{"filters": "genres:Drama AND (year >= 2000 OR year = 1999) AND NOT supplier:HP"}"#) == ["2", "4"])
        #expect(try matching(#"{"filters": "year:1990 TO 1999"}"#) == ["1", "3"])
        #expect(try matching(#"{"filters": "supplier:\"HP Inc\""}"#) == ["3"])
        #expect(try matching(#"{"filters": "inStock:true AND year != 2010"}"#) == ["1", "3"])
        #expect(try matching(#"{"filters": "year > 2005 OR year < 1999"}"#) == ["3", "4"])
        #expect(try matching(#"{"filters": "year <= 1999"}"#) == ["1", "3"])
    }

    @Test func facetNumericAndTagFilterParameters() throws {
        #expect(try matching(#"{"facetFilters": [["genres:Comedy", "supplier:HP"], "inStock:true"]}"#) == ["1", "3"])
        #expect(try matching(#"{"numericFilters": ["year > 1996", "year < 2006"]}"#) == ["1", "2"])
        #expect(try matching(#"{"tagFilters": ["new"]}"#) == ["1"])
        #expect(try matching(#"{"facetFilters": ["-genres:Drama"]}"#) == ["3"])
    }

    @Test func filterValuesMatchIgnoringCaseAndAccents() throws {
        #expect(try matching(#"{"filters": "genres:drama AND supplier:hp"}"#) == ["1"])
    }

    @Test func attributeMustBeFaceted() throws {
        #expect(throws: SearchError.self) { try search(index(), "", #"{"filters": "title:a"}"#) }
        do {
            _ = try search(index(), "", #"{"filters": "price > 3"}"#)
            Issue.record("expected an error")
        } catch let e as SearchError {
            #expect(e.code == .invalidFilter)
            #expect(e.message.contains("attribute 'price' is not in attributesForFaceting"))
        }
    }

    @Test func filtersApplyToTextMatchesAndCounts() throws {
        let r = try search(index(), "a", #"{"filters": "genres:Drama", "facets": ["genres"]}"#)
        #expect(r.nbHits == 3)
        #expect(counts(r, "genres") == ["Drama": 3, "Comedy": 1])
    }
}
