import Testing
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
@testable import FederatedSearchBackends

/// The `typesense` kind without a server: its config (unknown keys, secrets), the search
/// request built from a query, and the answer (fixtures in `TypesenseFixtures`) mapped to
/// Algolia-shaped results.
struct TypesenseMappingTests {
    static let options: JSONObject = [
        "url": "http://127.0.0.1:8108", "collection": "products", "apiKey": ["env": "TS_KEY"],
        "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"],
    ]

    func config(_ extra: JSONObject = [:], environment: [String: String] = ["TS_KEY": "s3cret-key"]) throws -> TypesenseConfig {
        var o = Self.options
        for e in extra { o[e.key] = e.value }
        return try TypesenseConfig(BackendConfig(name: "ts", options: o, path: "searchables.ts"), environment: environment)
    }

    func request(_ text: String, _ params: JSONObject = [:], config extra: JSONObject = [:]) throws -> TypesenseRequest {
        try TypesenseRequest(query: SearchQuery(text: text, parameters: try SearchParameters.decode(params)), config: try config(extra))
    }

    func map(_ fixture: String, _ request: TypesenseRequest) throws -> SearchResults {
        try TypesenseResponse.results(try JSONParser.parse(Array(fixture.utf8)), request: request)
    }

    func error(_ body: () throws -> Void) -> SearchError? {
        do { try body() } catch let e as SearchError { return e } catch { return nil }
        return nil
    }

    // MARK: config

    @Test func configReadsTheKeyFromTheEnvironmentAndNeverDescribesIt() throws {
        let c = try config()
        #expect(c.apiKey.value == "s3cret-key")
        #expect(c.apiKey.description == "<redacted>")
        #expect(c.queryBy == ["title", "short_description"])
        #expect(c.searchPath == "/collections/products/documents/search")
        #expect(c.nodes.count == 1 && c.numRetries == 0 && c.nearestNode == nil)
        #expect(try config(["apiKey": "plain"]).apiKey.value == "plain")
    }

    @Test func aClusterIsConfiguredAsTypesensesClientsDescribeIt() throws {
        var o = Self.options
        o["url"] = nil
        o["nodes"] = ["http://10.0.0.1:8108", ["url": "http://10.0.0.2:8108"], "http://10.0.0.3:8108"]
        o["nearestNode"] = "http://127.0.0.1:8108"
        o["retryIntervalSeconds"] = 0.25
        o["healthcheckIntervalSeconds"] = 2
        o["connectionTimeoutSeconds"] = 1.5
        let c = try TypesenseConfig(BackendConfig(name: "ts", options: o, path: "searchables.ts"), environment: ["TS_KEY": "k"])
        #expect(c.nodes.map(\.absoluteString) == ["http://10.0.0.1:8108", "http://10.0.0.2:8108", "http://10.0.0.3:8108"])
        #expect(c.nearestNode?.absoluteString == "http://127.0.0.1:8108")
        #expect(c.numRetries == 3, "each node once, the nearest one included")
        #expect(c.retryInterval == .milliseconds(250) && c.healthcheckInterval == .seconds(2) && c.connectionTimeout == .milliseconds(1500))
        #expect(error { _ = try config(["nodes": ["http://a:1"]]) }?.message.contains("not both") == true)
        var none = Self.options
        none["url"] = nil
        #expect(
            error {
                _ = try TypesenseConfig(BackendConfig(name: "ts", options: none, path: "searchables.ts"), environment: ["TS_KEY": "k"])
            }?
            .code == .missingField)
        none["nodes"] = ["http://a:1", 5]
        #expect(
            error {
                _ = try TypesenseConfig(BackendConfig(name: "ts", options: none, path: "searchables.ts"), environment: ["TS_KEY": "k"])
            }?
            .message.contains("searchables.ts.nodes[1]") == true)
        none["nodes"] = []
        #expect(
            error {
                _ = try TypesenseConfig(BackendConfig(name: "ts", options: none, path: "searchables.ts"), environment: ["TS_KEY": "k"])
            }?
            .message.contains("at least one node") == true)
        #expect(error { _ = try config(["retryIntervalSeconds": -1]) }?.message.contains("searchables.ts.retryIntervalSeconds") == true)
    }

    @Test func configErrorsNameTheJSONPath() throws {
        let unknown = error { _ = try config(["queryby": ["title"]]) }
        #expect(unknown?.code == .unknownField)
        #expect(unknown?.message == "searchables.ts.queryby: unknown field")
        let missingKey = error { _ = try config(environment: [:]) }
        #expect(missingKey?.message.contains("searchables.ts.apiKey.env") == true)
        #expect(missingKey?.message.contains("TS_KEY") == true)
        #expect(error { _ = try config(["url": "http://127.0.0.1:8108/?x=1"]) }?.message.contains("searchables.ts.url") == true)
        #expect(error { _ = try config(["url": "ftp://host"]) }?.code == .invalidField)
        #expect(error { _ = try config(["queryBy": []]) }?.message.contains("searchables.ts.queryBy") == true)
        #expect(error { _ = try config(["facetBy": ["a,b"]]) }?.message.contains("searchables.ts.facetBy[0]") == true)
    }

    // MARK: request

    @Test func requestCarriesQueryPagingFacetsFilterAndTags() throws {
        let r = try request(
            "  toner black ",
            [
                "page": 2, "hitsPerPage": 5, "facets": ["supplier", "colour", "price"], "filters": "supplier:HP AND price > 10",
                "highlightPreTag": "<b>", "highlightPostTag": "</b>", "maxValuesPerFacet": 7,
            ])
        #expect(r.value(of: "q") == "toner black")
        #expect(r.value(of: "query_by") == "title,short_description")
        #expect(r.value(of: "filter_by") == "(supplier:=`HP` && price:>10)")
        #expect(r.value(of: "facet_by") == "supplier,price")  // colour is not in facetBy
        #expect(r.value(of: "max_facet_values") == "7")
        #expect(r.value(of: "page") == "3")
        #expect(r.value(of: "per_page") == "5")
        #expect(r.value(of: "highlight_start_tag") == "<b>")
        #expect(r.value(of: "highlight_end_tag") == "</b>")
        #expect(r.value(of: "include_fields") == nil)
        #expect(r.queryWords == ["toner", "black"])
    }

    @Test func emptyQueryStarFacetsRetrievedFieldsAndOffsets() throws {
        let r = try request(
            "", ["facets": ["*"], "attributesToRetrieve": ["title", "price", "secret"]],
            config: ["attributes": ["title", "price"]])
        #expect(r.value(of: "q") == "*")
        #expect(r.value(of: "facet_by") == "supplier,price")
        #expect(r.value(of: "include_fields") == "id,title,price")
        #expect(r.value(of: "filter_by") == nil)
        #expect(try request("x", ["offset": 40, "length": 20]).value(of: "page") == "3")
        #expect(error { _ = try request("x", ["offset": 5, "length": 20]) }?.code == .invalidRequest)
        #expect(error { _ = try request("x", ["hitsPerPage": 251]) }?.message.contains("250") == true)
    }

    /// A filter condition on a field the collection lacks matches nothing (Typesense would
    /// refuse the field): with the schema's fields, or the config's when it lists `facetBy`.
    @Test func conditionsOnFieldsTheCollectionLacksMatchNothing() throws {
        let query = { (params: JSONObject) in SearchQuery(text: "", parameters: try SearchParameters.decode(params)) }
        let fields: Set<String> = ["title", "supplier", "price"]
        let other = try TypesenseRequest(query: query(["facetFilters": [["genres:Drama"]]]), config: config(), fields: fields)
        #expect(other.matchesNothing)
        #expect(other.value(of: "filter_by") == nil)
        let mixed = try TypesenseRequest(query: query(["filters": "supplier:HP AND NOT genres:Drama"]), config: config(), fields: fields)
        #expect(!mixed.matchesNothing)
        #expect(mixed.value(of: "filter_by") == "supplier:=`HP`")
        let declared = try config().declaredFields
        #expect(declared?.isSuperset(of: ["supplier", "price", "title", "short_description"]) == true)
        #expect(try config(["facetBy": .null]).declaredFields == nil, "without facetBy the config does not say")
        let schema: JSONObject = [
            "name": "products", "fields": [["name": "title", "type": "string"], ["name": "price", "type": "int32"]],
        ]
        #expect(TypesenseClient.fieldNames(ofSchema: schema) == ["title", "price"])
        let auto: JSONObject = ["fields": [["name": ".*", "type": "auto"]]]
        #expect(TypesenseClient.fieldNames(ofSchema: auto) == nil)
    }

    @Test func urlRequestEncodesParametersAndSendsTheKeyOnlyAsAHeader() throws {
        let client = TypesenseClient(name: "ts", config: try config())
        let r = try client.map(
            query: SearchQuery(text: "a&b=c d", parameters: try SearchParameters.decode(["filters": "supplier:\"A&B\""])))
        let u = client.searchRequest(r, on: client.config.nodes[0])
        let text = u.displayURL + "?" + (u.query ?? "")
        #expect(text.hasPrefix("http://127.0.0.1:8108/collections/products/documents/search?q=a%26b%3Dc%20d&query_by="))
        #expect(text.contains("filter_by=supplier%3A%3D%60A%26B%60"))
        #expect(!text.contains("s3cret-key"))
        #expect(u.headers.first { $0.0 == "X-TYPESENSE-API-KEY" }?.1 == "s3cret-key")
        #expect(client.description.kind == "typesense")
        #expect(client.description.attributesForFaceting == ["supplier", "price"])
    }

    // MARK: response

    @Test func answerMapsHitsCountsHighlightsFacetsAndStats() throws {
        let req = try request(
            "toner black",
            [
                "hitsPerPage": 2, "facets": ["supplier", "price"], "highlightPreTag": "<b>", "highlightPostTag": "</b>",
            ])
        let r = try map(TypesenseFixtures.search, req)
        #expect(r.nbHits == 11)
        #expect(r.nbPages == 6)
        #expect(r.hitsPerPage == 2)
        #expect(r.processingTimeMS == 3)
        #expect(r.hits.map(\.objectID) == ["690277", "3659405"])
        #expect(r.hits[0].attributes["id"] == nil)
        #expect(r.hits[0].attributes["supplier"] == "Lexmark")
        let title = r.hits[0].highlightResult?["title"]
        #expect(
            title == [
                "value": "Lexmark C5220KS <b>toner</b> cartridge Original <b>Black</b> 1 pc(s)",
                "matchLevel": "full", "matchedWords": ["toner", "black"],
            ])
        #expect(r.hits[1].highlightResult?["title"]?.objectValue?["matchLevel"] == "partial")
        #expect(
            r.hits[1].highlightResult?["short_description"] == [
                "value": "X85xe Cartridge, 30K", "matchLevel": "none", "matchedWords": [],
            ])
        // Facets in the order asked for; stats only for the numeric one.
        #expect(r.facets.map(\.attribute) == ["supplier", "price"])
        #expect(r.facets[0].values.map(\.value) == ["Lexmark", "OKI"])
        #expect(r.facets[0].values.map(\.count) == [9, 2])
        #expect(r.facetsStats == [FacetStats(attribute: "price", min: 14394, max: 64795, avg: 33794.72727272727, sum: 371742)])
        // Both words matched ranks above one word matched; all in [0, 1].
        #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) })
        #expect(r.hits[0].rankingScore > r.hits[1].rankingScore)
        #expect(r.hits[0].rankingScore >= 2.0 / 3)
    }

    @Test func textMatchScoreIsBoundedAndFollowsTextMatch() {
        let unit = 576460752303423488.0
        #expect(TypesenseResponse.score(textMatch: 0, queryWords: 2) == 0)
        #expect(TypesenseResponse.score(textMatch: 100, queryWords: 0) > 0)
        let values = [unit + 5, unit + 4e15, 2 * unit + 10, 2 * unit + 4.5e15, 2 * unit + 5e17]  // 1 then 2 of 2 words
        let scores = values.map { TypesenseResponse.score(textMatch: $0, queryWords: 2) }
        #expect(scores == scores.sorted())
        #expect(scores.allSatisfy { (0...1).contains($0) })
        #expect(TypesenseResponse.score(textMatch: 31 * unit, queryWords: 2) <= 1)
    }

    @Test func highlightsArrayWildcardRanksAndNumericIDs() throws {
        let arrayForm = try map(TypesenseFixtures.highlightsArray, try request("black"))
        #expect(arrayForm.hits.first?.objectID == "7")
        #expect(arrayForm.hits.first?.highlightResult?["title"]?.objectValue?["value"] == "Brother <b>Black</b> Toner")
        let wildcard = try map(TypesenseFixtures.wildcard, try request("", ["page": 1, "hitsPerPage": 2]))
        #expect(wildcard.nbHits == 40)
        #expect(wildcard.page == 1)
        let expected: [Double] = [1 / 1.2, 1 / 1.3]  // ranks 2 and 3: 1 / (1 + r / 10)
        #expect(zip(wildcard.hits.map(\.rankingScore), expected).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    @Test func malformedAnswersNameThePath() throws {
        let req = try request("x")
        let missing = error { _ = try map(TypesenseFixtures.missingID, req) }
        #expect(missing?.code == .backendBadResponse)
        #expect(missing?.message == "response.hits[1].document.id: missing")
        #expect(error { _ = try map(#"{"hits": []}"#, req) }?.message == "response.found: expected a count")
        #expect(error { _ = try map(#"{"found": 1, "hits": {}}"#, req) }?.message == "response.hits: expected an array")
        #expect(error { _ = try map(#"[1]"#, req) }?.message == "response: expected an object, got array")
        let badFacet = error {
            _ = try map(#"{"found": 0, "hits": [], "facet_counts": [{"field_name": "a", "counts": [{"value": "x"}]}]}"#, req)
        }
        #expect(badFacet?.message == "response.facet_counts[0].counts[0].count: expected a count")
    }
}

/// Typesense's answer to a filter on a field its schema lacks is a filter error naming the
/// field, not a backend failure.
struct TypesenseFilterErrorTests {
    @Test func anUnknownFilterFieldIsAFilterErrorNamingIt() {
        let body = Array(#"{"message": "Could not find a filter field named `nosuch` in the schema."}"#.utf8)
        let e = TypesenseClient.httpError(body, status: 404, name: "shop", method: "DELETE", url: "http://n1/collections/p/documents")
        #expect(e.code == .invalidFilter)
        #expect(e.message.contains("'nosuch'"))
        let other = TypesenseClient.httpError(Array(#"{"message": "Not Found"}"#.utf8), status: 404, name: "shop", method: "GET", url: "u")
        #expect(other.code == .backendHTTPError)
    }
}
