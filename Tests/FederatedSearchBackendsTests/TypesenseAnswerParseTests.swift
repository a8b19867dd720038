import Testing
@testable import FederatedSearchBackends
import FederatedSearchCore

/// ``TypesenseResponse/parseAnswer(_:)`` keeps what the mapping reads and skips the rest: the
/// results equal those of a full parse, the older `highlights` serve when `highlight` is
/// missing, and malformed JSON in a skipped member is still an error.
@Suite struct TypesenseAnswerParseTests {
    let request: TypesenseRequest

    init() throws {
        let config = try TypesenseConfig(
            BackendConfig(
                name: "ts",
                options: [
                    "url": "http://127.0.0.1:8108", "collection": "products", "apiKey": "k",
                    "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"],
                ]))
        request = try TypesenseRequest(
            query: SearchQuery(
                text: "toner black",
                parameters: try SearchParameters.decode([
                    "hitsPerPage": 2, "facets": ["supplier", "price"], "highlightPreTag": "<b>", "highlightPostTag": "</b>",
                ])), config: config)
    }

    @Test func resultsEqualThoseOfAFullParse() throws {
        let bytes = Array(TypesenseFixtures.search.utf8)
        let full = try TypesenseResponse.results(try JSONParser.parse(bytes), request: request)
        #expect(try TypesenseResponse.results(try TypesenseResponse.parseAnswer(bytes), request: request) == full)
        #expect(!full.hits.isEmpty)
    }

    @Test func skippedMembersAreNotKeptAndOlderHighlightsServeWithoutTheNewOnes() throws {
        let answer = #"""
            {"found": 1, "request_params": {"q": "toner"}, "search_time_ms": 2,
             "hits": [{"document": {"id": "7", "title": "Black toner"},
                       "highlights": [{"field": "title", "matched_tokens": ["toner"], "value": "Black <b>toner</b>"}],
                       "text_match": 578730123365187705,
                       "text_match_info": {"best_field_score": "1108091338752", "tokens_matched": 1}}]}
            """#
        let parsed = try TypesenseResponse.parseAnswer(Array(answer.utf8))
        let root = try #require(parsed.objectValue)
        #expect(root["request_params"] == nil)
        let hit = try #require(root["hits"]?.arrayValue?.first?.objectValue)
        #expect(hit["text_match_info"] == nil)
        #expect(hit["highlights"] != nil)
        let r = try TypesenseResponse.results(parsed, request: request)
        #expect(r.hits.first?.highlightResult?["title"]?.objectValue?["value"] == "Black <b>toner</b>")
        #expect(r.processingTimeMS == 2)
    }

    @Test func malformedJSONInASkippedMemberIsAnError() {
        for text in [#"{"found": 1, "hits": [{"text_match_info": {"a": tru}}]}"#, #"{"request_params": [1,}"#, #"{"found": 1} x"#] {
            #expect(throws: JSONParseError.self, "\(text)") { try TypesenseResponse.parseAnswer(Array(text.utf8)) }
        }
    }
}
