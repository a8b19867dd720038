import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// BM25F scoring: what counts toward a word's term frequency, and how attributes weigh.
@Suite struct BM25Tests {
    static let settings = #"{"searchableAttributes": ["title", "text"], "queryLanguages": ["en"], "ranking": ["bm25"]}"#

    /// Inflections of a stemmed word add up: a document using two forms of the word ranks
    /// above one using a single form once, all else equal.
    @Test func inflectionsSumTheirFrequencies() throws {
        let idx = try makeIndex(Self.settings, """
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
        let idx = try makeIndex(Self.settings, """
            {"objectID": "body", "title": "alpha beta", "text": "gamma nozzle"}
            {"objectID": "title", "title": "gamma nozzle", "text": "alpha beta"}
            """)
        let r = try search(idx, "nozzle", #"{"matchingStrategy": "any", "getRankingInfo": true}"#)
        #expect(ids(r) == ["title", "body"])
    }

    /// Each attribute is normalised by its own length: a word in a short body beats the same
    /// word in a long body.
    @Test func perAttributeLengthNormalisation() throws {
        let idx = try makeIndex(Self.settings, """
            {"objectID": "long", "title": "x", "text": "shock one two three four five six seven eight nine ten eleven"}
            {"objectID": "short", "title": "x", "text": "shock one"}
            """)
        let r = try search(idx, "shock", #"{"matchingStrategy": "any"}"#)
        #expect(ids(r) == ["short", "long"])
    }
}
