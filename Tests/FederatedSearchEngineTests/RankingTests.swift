import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Ranking: one test per tie-breaking rule. Each fixture makes every earlier rule tie, so
/// the rule under test alone decides the order.
@Suite struct RankingTests {
    /// typo: fewer typos first.
    @Test func fewerTyposFirst() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "typo", "title": "phane"}
            {"objectID": "exact", "title": "phone"}
            """)
        #expect(ids(try search(idx, "phone", #"{"queryType": "prefixNone"}"#)) == ["exact", "typo"])
    }

    /// words: more matched words first (with optional words).
    @Test func moreWordsFirst() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "one", "title": "red"}
            {"objectID": "two", "title": "red car"}
            """)
        #expect(ids(try search(idx, "red car", #"{"optionalWords": ["car"]}"#)) == ["two", "one"])
    }

    /// proximity: matched words closer together first.
    @Test func closerWordsFirst() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "far", "title": "new shiny old red york"}
            {"objectID": "near", "title": "new york"}
            """)
        #expect(ids(try search(idx, "new york")) == ["near", "far"])
    }

    /// attribute: a match in an earlier searchable attribute first; then earlier in it,
    /// unless the attribute is unordered.
    @Test func earlierAttributeFirst() throws {
        let docs = """
            {"objectID": "body", "title": "x", "body": "apple"}
            {"objectID": "title-late", "title": "green sweet apple", "body": "y"}
            {"objectID": "title-early", "title": "apple pie", "body": "y"}
            """
        let idx = try makeIndex(#"{"searchableAttributes": ["title", "body"]}"#, docs)
        #expect(ids(try search(idx, "apple")) == ["title-early", "title-late", "body"])
        let unordered = try makeIndex(#"{"searchableAttributes": ["unordered(title)", "body"]}"#, docs)
        #expect(ids(try search(unordered, "apple")) == ["title-late", "title-early", "body"])
    }

    /// exact: a word matched whole beats one matched only as a prefix.
    @Test func exactBeforePrefix() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "prefix", "title": "cartoon"}
            {"objectID": "exact", "title": "car"}
            """)
        #expect(ids(try search(idx, "car")) == ["exact", "prefix"])
    }

    /// custom: customRanking decides between otherwise equal hits, and orders an empty query.
    @Test func customRankingBreaksTies() throws {
        let idx = try makeIndex(
            #"{"customRanking": ["desc(popularity)", "asc(price)"]}"#,
            """
            {"objectID": "a", "title": "lamp", "popularity": 1, "price": 5}
            {"objectID": "b", "title": "lamp", "popularity": 9, "price": 7}
            {"objectID": "c", "title": "lamp", "popularity": 9, "price": 3}
            {"objectID": "d", "title": "lamp"}
            """)
        #expect(ids(try search(idx, "lamp")) == ["c", "b", "a", "d"])
        #expect(ids(try search(idx, "")) == ["c", "b", "a", "d"])
    }

    /// Documents are numbered in custom ranking order (what lets the pruned scan stop early),
    /// equal ones in their given order, each keeping its own objectID and attributes.
    @Test func documentsAreNumberedInCustomRankingOrder() throws {
        let idx = try makeIndex(
            #"{"customRanking": ["desc(popularity)"]}"#,
            """
            {"objectID": "a", "title": "lamp", "popularity": 1}
            {"objectID": "b", "title": "lamp", "popularity": 9}
            {"objectID": "c", "title": "lamp"}
            {"objectID": "d", "title": "lamp", "popularity": 9}
            {"objectID": "e", "title": "lamp", "popularity": 4}
            """)
        let s = idx.snapshot
        #expect(s.objectIDs == ["b", "d", "e", "a", "c"])
        #expect(zip(s.customOrdinal, s.customOrdinal.dropFirst()).allSatisfy { $0 <= $1 })
        for (d, id) in s.objectIDs.enumerated() { #expect(s.documents[d]["objectID"] == .string(id)) }
        #expect(ids(try search(idx, "lamp")) == ["b", "d", "e", "a", "c"])
    }

    /// bm25: as a rule, a document where the word is more frequent (and the text shorter) first.
    @Test func bm25Rule() throws {
        let idx = try makeIndex(
            #"{"ranking": ["bm25"]}"#,
            """
            {"objectID": "once", "title": "wing and many other words here"}
            {"objectID": "twice", "title": "wing wing"}
            """)
        #expect(ids(try search(idx, "wing")) == ["twice", "once"])
    }

    /// ranking order is configurable: custom before typo puts the popular typo hit first.
    @Test func configurableOrder() throws {
        let docs = """
            {"objectID": "exact", "title": "phone", "popularity": 1}
            {"objectID": "typo", "title": "phane", "popularity": 5}
            """
        let idx = try makeIndex(#"{"ranking": ["custom", "typo"], "customRanking": ["desc(popularity)"]}"#, docs)
        #expect(ids(try search(idx, "phone", #"{"queryType": "prefixNone"}"#)) == ["typo", "exact"])
        let sorted = try makeIndex(#"{"ranking": ["asc(popularity)", "typo"]}"#, docs)
        #expect(ids(try search(sorted, "phone", #"{"queryType": "prefixNone"}"#)) == ["exact", "typo"])
    }

    /// geo: with aroundLatLng, nearer first; aroundRadius filters.
    @Test func nearerFirstAndRadius() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "paris", "name": "airport", "_geoloc": {"lat": 48.85, "lng": 2.35}}
            {"objectID": "lyon", "name": "airport", "_geoloc": {"lat": 45.76, "lng": 4.84}}
            """)
        #expect(ids(try search(idx, "airport", #"{"aroundLatLng": "45.7, 4.8"}"#)) == ["lyon", "paris"])
        #expect(ids(try search(idx, "airport", #"{"aroundLatLng": "48.8, 2.3", "aroundRadius": 50000}"#)) == ["paris"])
    }

    /// typoTolerance min keeps only the fewest typos; strict also one more.
    @Test func typoToleranceModes() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "exact", "title": "phone"}
            {"objectID": "typo", "title": "phane"}
            """)
        #expect(ids(try search(idx, "phone", #"{"typoTolerance": "min", "queryType": "prefixNone"}"#)) == ["exact"])
        #expect(ids(try search(idx, "phone", #"{"typoTolerance": "strict", "queryType": "prefixNone"}"#)) == ["exact", "typo"])
    }

    /// _rankingScore is in [0, 1] and does not increase down the list for the default rules.
    @Test func rankingScoreAndInfo() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "a", "title": "new york city"}
            {"objectID": "b", "title": "new jersey and york"}
            {"objectID": "c", "title": "new yorkshire"}
            """)
        let r = try search(idx, "new york", #"{"getRankingInfo": true}"#)
        #expect(ids(r) == ["a", "c", "b"])
        let scores = r.hits.map(\.rankingScore)
        #expect(scores.allSatisfy { (0...1).contains($0) })
        #expect(scores == scores.sorted(by: >))
        let info = r.hits[0].rankingInfo!
        #expect(info["nbTypos"] == 0 && info["words"] == 2 && info["proximityDistance"] == 1)
        #expect(r.hits[1].rankingInfo!["nbExactWords"] == 1)
    }

    /// distinct: one hit per attributeForDistinct value.
    @Test func distinctKeepsBestOfEachGroup() throws {
        let idx = try makeIndex(
            #"{"attributeForDistinct": "model"}"#,
            """
            {"objectID": "a1", "title": "shoe red", "model": "a"}
            {"objectID": "a2", "title": "shoe", "model": "a"}
            {"objectID": "b1", "title": "shoe", "model": "b"}
            """)
        let r = try search(idx, "shoe", #"{"distinct": true}"#)
        #expect(ids(r) == ["a1", "b1"])
        #expect(r.nbHits == 2)
        #expect(try search(idx, "shoe").nbHits == 3)
    }
}
