import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// BM25F scoring: what counts toward a word's term frequency, and how attributes weigh.
@Suite struct BM25Tests {
    static let settings = #"{"searchableAttributes": ["title", "text"], "queryLanguages": ["en"], "ranking": ["bm25"]}"#

    /// BM25 parameters outside their ranges are refused with the field's path: a negative k1
    /// or b made scores negative or NaN, and turning such a score into a ranking key trapped
    /// (a `setSettings` from any client could take the daemon down). The ranges' ends work.
    @Test func parametersOutOfRangeAreRefusedAndTheEndsWork() throws {
        for (bm25, field) in [
            (#"{"k1": -2}"#, "bm25.k1"), (#"{"k1": -1}"#, "bm25.k1"), (#"{"b": -10}"#, "bm25.b"),
            (#"{"b": 1.5}"#, "bm25.b"), (#"{"k1": 1e300}"#, "bm25.k1"),
        ] {
            do {
                _ = try makeIndex(#"{"searchableAttributes": ["title"], "bm25": \#(bm25)}"#, #"{"objectID": "1", "title": "star"}"#)
                Issue.record("accepted \(bm25)")
            } catch let e as SearchError {
                #expect(e.code == .invalidField && e.message.contains(field), "\(bm25): \(e.message)")
            }
        }
        let documents = [
            #"{"objectID": "a", "title": "star"}"#, #"{"objectID": "b", "title": "star wars"}"#,
            #"{"objectID": "c", "title": "star wars star trek star"}"#, #"{"objectID": "d", "title": "a star is born"}"#,
        ].joined(separator: "\n")
        for bm25 in [#"{"k1": 0, "b": 0}"#, #"{"k1": 100, "b": 1}"#, #"{"k1": 0, "b": 1}"#] {
            let idx = try makeIndex(#"{"searchableAttributes": ["title"], "ranking": ["bm25", "words"], "bm25": \#(bm25)}"#, documents)
            let r = try search(idx, "star", #"{"matchingStrategy": "any", "hitsPerPage": 2}"#)
            #expect(r.nbHits == 4, "\(bm25)")
        }
    }

    /// Inflections of a stemmed word add up: a document using two forms of the word ranks
    /// above one using a single form once, all else equal.
    @Test func inflectionsSumTheirFrequencies() throws {
        let idx = try makeIndex(
            Self.settings,
            """
            {"objectID": "once", "title": "report", "text": "wing tested in a tunnel xx"}
            {"objectID": "both", "title": "report", "text": "wing tested in the wings tunnel"}
            {"objectID": "other", "title": "report", "text": "plain body text with nothing"}
            """)
        let r = try search(idx, "wing", #"{"matchingStrategy": "any", "typoTolerance": false, "queryType": "prefixNone"}"#)
        #expect(ids(r).prefix(2) == ["both", "once"])
    }

    /// The first searchable attribute weighs more: the same word once in the title beats
    /// once in a body of the same length.
    @Test func firstAttributeWeighsMore() throws {
        let idx = try makeIndex(
            Self.settings,
            """
            {"objectID": "body", "title": "alpha beta", "text": "gamma nozzle"}
            {"objectID": "title", "title": "gamma nozzle", "text": "alpha beta"}
            """)
        let r = try search(idx, "nozzle", #"{"matchingStrategy": "any", "getRankingInfo": true}"#)
        #expect(ids(r) == ["title", "body"])
    }

    /// Each attribute is normalised by its own length: a word in a short body beats the same
    /// word in a long body.
    @Test func perAttributeLengthNormalisation() throws {
        let idx = try makeIndex(
            Self.settings,
            """
            {"objectID": "long", "title": "x", "text": "shock one two three four five six seven eight nine ten eleven"}
            {"objectID": "short", "title": "x", "text": "shock one"}
            """)
        let r = try search(idx, "shock", #"{"matchingStrategy": "any"}"#)
        #expect(ids(r) == ["short", "long"])
    }
}
