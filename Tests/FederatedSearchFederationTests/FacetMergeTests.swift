import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

/// Facets merged across sources: options, aliases, sums, order, cut, stats, exhaustive, JSON.
struct FacetMergeTests {
    func results(
        _ facets: [String: [(String, Int)]] = [:], order: [String]? = nil, stats: [FacetStats] = [], nbHits: Int = 100,
        exhaustive: Bool = true
    ) -> SearchResults {
        let names = order ?? facets.keys.sorted()
        return SearchResults(
            nbHits: nbHits,
            facets: names.map { FacetCounts(attribute: $0, values: facets[$0]!.map { (value: $0.0, count: $0.1) }) },
            facetsStats: stats, exhaustiveNbHits: exhaustive)
    }

    func values(_ merged: MergedFacets, _ name: String) -> [String] {
        merged.facets.first { $0.counts.attribute == name }?.counts.values.map { "\($0.value)=\($0.count)" } ?? []
    }

    @Test func decodesOptionsWithDefaults() throws {
        #expect(try FacetMergeOptions.decode(mergeFacets: nil, facetAliases: nil) == FacetMergeOptions(maxValuesPerFacet: 10))
        let o = try FacetMergeOptions.decode(
            mergeFacets: object(#"{"maxValuesPerFacet": 3}"#),
            facetAliases: object(#"{"brand": {"products": "supplier", "phones": "brand"}}"#))
        #expect(o.maxValuesPerFacet == 3)
        #expect(o.aliases == ["brand": ["products": "supplier", "phones": "brand"]])
    }

    @Test func rejectsBadOptionsNamingThePath() {
        func error(_ merge: String?, _ aliases: String?) -> SearchError? {
            do {
                _ = try FacetMergeOptions.decode(mergeFacets: merge.map(object), facetAliases: aliases.map(object))
                return nil
            } catch { return error }
        }
        #expect(error(#"{"max": 3}"#, nil) == SearchError(.unknownField, "mergeFacets.max: unknown field"))
        #expect(error(#"{"maxValuesPerFacet": 0}"#, nil)?.code == .invalidField)
        #expect(
            error(#"{"maxValuesPerFacet": "3"}"#, nil)
                == SearchError(.invalidField, "mergeFacets.maxValuesPerFacet: expected an integer, got string"))
        #expect(
            error(nil, #"{"brand": "supplier"}"#)
                == SearchError(.invalidField, "facetAliases.brand: expected an object of index → attribute, got string"))
        #expect(
            error(nil, #"{"brand": {"products": 1}}"#)
                == SearchError(.invalidField, "facetAliases.brand.products: expected a string, got number"))
        #expect(error(nil, #"{"brand": {"products": ""}}"#)?.code == .invalidField)
        #expect(
            error(nil, #"{"brand": {"products": "supplier"}, "maker": {"products": "supplier"}}"#)
                == SearchError(.invalidField, "facetAliases.maker.products: products.supplier already merges under brand"))
    }

    @Test func canonicalNames() {
        let o = FacetMergeOptions(aliases: ["brand": ["products": "supplier", "phones": "brand"]])
        #expect(o.canonicalName(source: "products", attribute: "supplier") == "brand")
        #expect(o.canonicalName(source: "phones", attribute: "brand") == "brand")
        #expect(o.canonicalName(source: "phones", attribute: "color") == "color")
        #expect(o.canonicalName(source: "tablets", attribute: "brand") == "brand")
        #expect(o.canonicalName(source: "tablets", attribute: "supplier") == "supplier")
        // products maps brand to supplier: its own "brand" attribute is left out.
        #expect(o.canonicalName(source: "products", attribute: "brand") == nil)
    }

    @Test func sumsCountsUnderAliasesAndListsContributors() {
        let options = FacetMergeOptions(aliases: ["brand": ["products": "supplier", "phones": "brand"]])
        let merged = FacetMerge.merge(
            [
                FacetSource(name: "products", results: results(["supplier": [("HP", 10), ("Dell", 4)], "brand": [("X", 99)]])),
                FacetSource(name: "phones", results: results(["brand": [("HP", 2), ("Apple", 7)], "color": [("red", 1)]])),
            ], options: options)
        #expect(merged.facets.map(\.counts.attribute) == ["brand", "color"])
        #expect(values(merged, "brand") == ["HP=12", "Apple=7", "Dell=4"])
        #expect(merged.facets[0].indices == ["products", "phones"])
        #expect(merged.facets[1].indices == ["phones"])
        #expect(merged.exhaustive)
    }

    @Test func sortsByCountThenValueAndCuts() {
        let merged = FacetMerge.merge(
            [
                FacetSource(name: "a", results: results(["tag": [("b", 3), ("c", 1), ("a", 3)]])),
                FacetSource(name: "b", results: results(["tag": [("d", 2), ("c", 2)]])),
            ], options: FacetMergeOptions(maxValuesPerFacet: 3))
        #expect(values(merged, "tag") == ["a=3", "b=3", "c=3"])
    }

    @Test func facetsKeepTheOrderTheyFirstAppear() {
        let merged = FacetMerge.merge(
            [
                FacetSource(name: "a", results: results(["z": [("1", 1)], "y": [("1", 1)]], order: ["z", "y"])),
                FacetSource(name: "b", results: results(["x": [("1", 1)], "y": [("1", 1)]], order: ["x", "y"])),
            ], options: FacetMergeOptions())
        #expect(merged.facets.map(\.counts.attribute) == ["z", "y", "x"])
    }

    @Test func mergesStatsWithAveragesWeightedByCounts() {
        // a: 3 values 1, 2, 3 (sum 6, avg 2); b: 1 value 10 (sum 10, avg 10).
        let merged = FacetMerge.merge(
            [
                FacetSource(name: "a", results: results(stats: [FacetStats(attribute: "price", min: 1, max: 3, avg: 2, sum: 6)])),
                FacetSource(name: "b", results: results(stats: [FacetStats(attribute: "cost", min: 10, max: 10, avg: 10, sum: 10)])),
            ], options: FacetMergeOptions(aliases: ["price": ["b": "cost"]]))
        #expect(
            merged.stats == [
                MergedFacetStats(
                    stats: FacetStats(attribute: "price", min: 1, max: 10, avg: 4, sum: 16), indices: ["a", "b"])
            ])
    }

    @Test func aZeroAverageFallsBackToNbHitsAsItsWeight() {
        // a: avg 0 (values -1, 1), nbHits 2; b: avg 6, 1 value. (0 × 2 + 6 × 1) / 3 = 2.
        let merged = FacetMerge.merge(
            [
                FacetSource(name: "a", results: results(stats: [FacetStats(attribute: "t", min: -1, max: 1, avg: 0, sum: 0)], nbHits: 2)),
                FacetSource(name: "b", results: results(stats: [FacetStats(attribute: "t", min: 6, max: 6, avg: 6, sum: 6)], nbHits: 50)),
            ], options: FacetMergeOptions())
        #expect(merged.stats[0].stats == FacetStats(attribute: "t", min: -1, max: 6, avg: 2, sum: 6))
    }

    @Test func aFailedOrInexactSourceMakesTheMergeNotExhaustive() {
        let ok = FacetSource(name: "a", results: results(["tag": [("x", 1)]]))
        #expect(FacetMerge.merge([ok], options: FacetMergeOptions()).exhaustive)
        let failed = FacetMerge.merge([ok, FacetSource(name: "b", results: nil)], options: FacetMergeOptions())
        #expect(!failed.exhaustive)
        #expect(failed.facets[0].indices == ["a"])
        let inexact = FacetSource(name: "c", results: results(["tag": [("x", 1)]], exhaustive: false))
        #expect(!FacetMerge.merge([ok, inexact], options: FacetMergeOptions()).exhaustive)
    }

    @Test func json() {
        let merged = FacetMerge.merge(
            [
                FacetSource(
                    name: "products",
                    results: results(
                        ["brand": [("HP", 12)]], stats: [FacetStats(attribute: "price", min: 1, max: 9, avg: 5, sum: 10)]))
            ], options: FacetMergeOptions())
        #expect(
            JSONWriter.string(.object(merged.json())) == """
                {"facets":{"brand":{"values":{"HP":12},"indices":["products"]}},\
                "facets_stats":{"price":{"min":1,"max":9,"avg":5,"sum":10,"indices":["products"]}},"exhaustive":true}
                """)
        #expect(
            JSONWriter.string(.object(FacetMerge.merge([], options: FacetMergeOptions()).json()))
                == #"{"facets":{},"facets_stats":{},"exhaustive":true}"#)
    }
}
