import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Settings decoding and index building: unknown keys and wrong types are named by path,
/// documents need string objectIDs, and the built structures hold what was indexed.
@Suite struct IndexBuildTests {
    @Test func decodesSettings() throws {
        let s = try IndexSettings.decode(
            json(
                """
                {"searchableAttributes": ["title,alt", "unordered(cast)"], "attributesForFaceting": ["genres", "searchable(brand)", "filterOnly(year)"],
                 "customRanking": ["desc(popularity)", "asc(price)"], "ranking": ["typo", "bm25", "asc(year)"],
                 "typoTolerance": "min", "synonyms": [{"type": "synonym", "synonyms": ["a", "b"]}, ["c", "d"]],
                 "attributeForDistinct": "group", "distinct": true, "paginationLimitedTo": 50, "ignorePlurals": ["en"]}
                """
            ).objectValue!, path: "searchables.movies")
        #expect(
            s.searchableAttributes == [
                SearchableAttribute(name: "title", priority: 0), SearchableAttribute(name: "alt", priority: 0),
                SearchableAttribute(name: "cast", priority: 1, unordered: true),
            ])
        #expect(s.attributesForFaceting.map(\.mode) == [.normal, .searchable, .filterOnly])
        #expect(
            s.customRanking == [
                CustomRankingCriterion(attribute: "popularity", ascending: false),
                CustomRankingCriterion(attribute: "price", ascending: true),
            ])
        #expect(s.ranking == [.typo, .bm25, .sort(attribute: "year", ascending: true)])
        #expect(s.typoTolerance == .min)
        #expect(s.synonyms.count == 2)
        #expect(s.distinct == 1 && s.paginationLimitedTo == 50 && s.ignorePlurals)
    }

    /// Every settings collection has a bound (docs/HTTP.md), refused naming the field: past
    /// them, building the index's structures would stall its writer.
    @Test func settingsCollectionsAreBounded() throws {
        func decode(_ o: JSONObject) throws -> IndexSettings { try IndexSettings.decode(o, path: "settings") }
        let words = (0...IndexSettings.Limits.wordsPerSynonym).map { JSONValue.string("w\($0)") }
        #expect(throws: SearchError(.invalidField, "settings.synonyms[0]: 1001 words; at most 1000")) {
            try decode(["synonyms": [.array(words)]])
        }
        #expect(throws: SearchError(.invalidField, "settings.synonyms[0]: 1001 words; at most 1000")) {
            try decode(["synonyms": [["type": "synonym", "synonyms": .array(words)]]])
        }
        let many = JSONValue.array((0...IndexSettings.Limits.synonyms).map { _ in ["a", "b"] })
        #expect(throws: SearchError(.invalidField, "settings.synonyms: 10001 synonyms; at most 10000")) { try decode(["synonyms": many]) }
        let attributes = JSONValue.array((0...IndexSettings.Limits.attributes).map { .string("a\($0)") })
        #expect(throws: SearchError(.invalidField, "settings.attributesForFaceting: 1001 entries; at most 1000")) {
            try decode(["attributesForFaceting": attributes])
        }
        #expect(try decode(["synonyms": [.array(Array(words.dropLast()))]]).synonyms[0].synonyms.count == 1000)
    }

    @Test func rejectsUnknownKeysAndWrongTypesByPath() {
        #expect(throws: SearchError(.unknownField, "searchables.movies.searchableAttribute: unknown field")) {
            try IndexSettings.decode(json(#"{"searchableAttribute": ["x"]}"#).objectValue!, path: "searchables.movies")
        }
        #expect(throws: SearchError(.invalidField, "searchables.movies.customRanking: expected an array of strings, got string")) {
            try IndexSettings.decode(json(#"{"customRanking": "desc(x)"}"#).objectValue!, path: "searchables.movies")
        }
        #expect(
            throws: SearchError(.invalidField, "searchables.movies.customRanking[0]: expected asc(attribute) or desc(attribute), got 'x'")
        ) {
            try IndexSettings.decode(json(#"{"customRanking": ["x"]}"#).objectValue!, path: "searchables.movies")
        }
        #expect(throws: SearchError.self) {
            try IndexSettings.decode(json(#"{"ranking": ["typos"]}"#).objectValue!, path: "s")
        }
        #expect(throws: SearchError.self) {
            try IndexSettings.decode(json(#"{"typoTolerance": "sometimes"}"#).objectValue!, path: "s")
        }
    }

    @Test func documentsNeedStringObjectIDs() {
        #expect(throws: SearchError(.invalidField, "movies: document 1: objectID must be a string, got number")) {
            try makeIndex("{}", #"{"objectID": "a"}"# + "\n" + #"{"objectID": 12}"#, name: "movies")
        }
        #expect(throws: SearchError(.invalidField, "movies: document 0: objectID is missing")) {
            try makeIndex("{}", #"{"title": "x"}"#, name: "movies")
        }
    }

    @Test func buildsSortedDictionaryAndPostings() throws {
        let index = try makeIndex(
            #"{"searchableAttributes": ["title", "body"]}"#,
            """
            {"objectID": "1", "title": "beta alpha", "body": "alpha"}
            {"objectID": "2", "title": "gamma", "body": "alpha beta"}
            """)
        let text = index.snapshot.text
        #expect((0..<text.dictionary.count).map { text.dictionary.string($0) } == ["alpha", "beta", "gamma"])
        let alpha = text.postings.postings(0)
        #expect(Array(text.postings.docs[alpha]) == [0, 1])
        // doc 0: title position 1 (slot 0), body position 0 (slot 1)
        let positions = Array(text.postings.positions[text.postings.positionRange(alpha.lowerBound)])
        #expect(positions == [1, 1 << 22])
        #expect(text.dictionary.prefixRange(Array("b".utf8)) == 1..<2)
        #expect(text.dictionary.prefixRange(Array("z".utf8)).isEmpty)
        #expect(
            index.description
                == SearchableDescription(
                    kind: "embedded", documentCount: 2, searchableAttributes: ["title", "body"], attributesForFaceting: []))
    }

    @Test func discoversTextAttributesWhenNoneAreConfigured() throws {
        let index = try makeIndex(
            "{}",
            """
            {"objectID": "1", "title": "x", "year": 1999, "cast": ["a", "b"]}
            {"objectID": "2", "plot": "y"}
            """)
        #expect(index.description.searchableAttributes == ["title", "cast", "plot"])
    }

    @Test func facetFieldsIndexArraysNestedPathsAndNumbers() throws {
        let index = try makeIndex(
            #"{"attributesForFaceting": ["genres", "meta.year"]}"#,
            """
            {"objectID": "1", "genres": ["Drama", "Comedy"], "meta": {"year": 1999}}
            {"objectID": "2", "genres": ["Drama"], "meta": {"year": 2001.5}}
            """)
        let genres = index.snapshot.facets[index.snapshot.facetByName["genres"]!]
        #expect(genres.values == ["Comedy", "Drama"])
        #expect(Array(genres.documents(ofValue: 1)) == [0, 1])
        let year = index.snapshot.facets[index.snapshot.facetByName["meta.year"]!]
        #expect(year.values == ["1999", "2001.5"])
        #expect(year.sortedNumbers.numbers == [1999, 2001.5])
    }

    /// A retrieved document's encoded attributes are kept for later hits when small; a large
    /// one is encoded each time (and gives the same hit), so large pages asked once leave no
    /// memory behind.
    @Test func onlySmallDocumentsKeepTheirEncoding() throws {
        let long = String(repeating: "word ", count: 5000)
        let index = try makeIndex(
            #"{"searchableAttributes": ["title"]}"#,
            """
            {"objectID": "small", "title": "alpha one"}
            {"objectID": "large", "title": "alpha two", "body": "\(long)"}
            """)
        let first = try search(index, "alpha")
        let again = try search(index, "alpha")
        #expect(Set(ids(first)) == ["small", "large"])
        #expect(first.hits == again.hits)
        #expect(first.hits.first { $0.objectID == "large" }?.attribute("body") == .string(long))
        let positions = index.snapshot.objectIDs
        #expect(index.snapshot.encodedAttributes.isCached(positions.firstIndex(of: "small")!))
        #expect(!index.snapshot.encodedAttributes.isCached(positions.firstIndex(of: "large")!))
    }
}
