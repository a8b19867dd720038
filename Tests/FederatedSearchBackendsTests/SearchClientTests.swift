import Testing
import Synchronization
import FederatedSearchCore
import FederatedSearchBackends

/// The SearchClient glue: which mapping runs, and what ClientSearchable fills in.
/// 1. No disjunctive facets, or none refined: `map(query:)`.
/// 2. A refined disjunctive facet: `map(query:disjunctiveFacets:refinements:)` with its values.
/// 3. Empty response fields are filled; scores are clamped into [0, 1].
struct SearchClientTests {
    /// Records which mapping was used and answers with fixed scores.
    struct RecordingClient: SearchClient {
        final class Log: Sendable {
            let calls = Mutex<[String]>([])
        }
        let log = Log()
        let scores: [Double]
        var description: SearchableDescription {
            SearchableDescription(kind: "test", documentCount: nil, searchableAttributes: [], attributesForFaceting: [])
        }
        func map(query: SearchQuery) throws -> String {
            log.calls.withLock { $0.append("plain") }
            return query.text
        }
        func map(query: SearchQuery, disjunctiveFacets: Set<String>, refinements: FacetRefinements) throws -> String {
            log.calls.withLock { $0.append("disjunctive \(refinements.attributes) \(refinements.values["brand"] ?? [])") }
            return query.text
        }
        func search(_ parameters: String) async throws -> [Double] { scores }
        func map(results: [Double]) throws -> SearchResults {
            SearchResults(hits: results.enumerated().map { Hit(objectID: "h\($0)", attributes: [:], rankingScore: $1) })
        }
    }

    func query(_ params: JSONObject) throws -> SearchQuery {
        SearchQuery(text: "tv", parameters: try SearchParameters.decode(params))
    }

    @Test func plainMappingWithoutDisjunctiveRefinements() async throws {
        let client = RecordingClient(scores: [])
        let s = ClientSearchable(client, name: "shop")
        _ = try await s.search(try query(["filters": "brand:HP"]))
        _ = try await s.search(try query(["disjunctiveFacets": ["brand"], "filters": "color:red"]))
        #expect(client.log.calls.withLock { $0 } == ["plain", "plain"])
    }

    @Test func disjunctiveMappingWhenARefinedFacetIsDisjunctive() async throws {
        let client = RecordingClient(scores: [])
        let s = ClientSearchable(client, name: "shop")
        _ = try await s.search(
            try query([
                "disjunctiveFacets": ["brand"], "filters": "(brand:HP OR brand:Dell) AND price < 10 AND NOT brand:Acer",
            ]))
        #expect(client.log.calls.withLock { $0 } == ["disjunctive [\"brand\"] [\"HP\", \"Dell\"]"])
    }

    @Test func fillsEmptyFieldsAndClampsScores() async throws {
        let s = ClientSearchable(RecordingClient(scores: [3, 0.5, -1, .nan]), name: "shop")
        let r = try await s.search(try query(["hitsPerPage": 5]))
        #expect(r.hits.map(\.rankingScore) == [1, 0.5, 0, 0])
        #expect(r.index == "shop")
        #expect(r.query == "tv")
        #expect(r.params.contains("hitsPerPage=5"))
    }

    @Test func cancelledTaskDoesNotCallTheBackend() async throws {
        let client = RecordingClient(scores: [1])
        let s = ClientSearchable(client, name: "shop")
        let q = try query([:])
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await s.search(q)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(client.log.calls.withLock { $0 }.isEmpty)
    }
}

/// Refinement extraction and the filter a disjunctive facet is counted under.
struct FacetRefinementsTests {
    func filter(_ s: String) throws -> FilterExpression? { try SearchParameters.decode(["filters": .string(s)]).filter }

    @Test func extractsRefinementsOutsideNot() throws {
        let r = FacetRefinements.extract(
            from: try filter("brand:HP AND (brand:Dell OR color:red) AND NOT brand:Acer AND year > 2000"),
            facets: ["brand", "color"])
        #expect(r.values == ["brand": ["HP", "Dell"], "color": ["red"]])
    }

    @Test func removingRefinementsKeepsOtherConditions() throws {
        let f = try filter("(brand:HP OR brand:Dell) AND price < 10")
        #expect(FacetRefinements.filter(f, removingRefinementsOf: "brand") == .numeric(attribute: "price", op: .lessThan, value: 10))
        #expect(FacetRefinements.filter(try filter("brand:HP"), removingRefinementsOf: "brand") == nil)
        // An OR mixing attributes stops restricting once one side is removed.
        #expect(FacetRefinements.filter(try filter("brand:HP OR color:red"), removingRefinementsOf: "brand") == nil)
    }
}
