import Foundation
import Synchronization
import Testing
import FederatedSearchCore
@testable import FederatedSearchHTTP
@testable import FederatedSearchServer

/// The HTTP API in process, as hummingbird's tests run a router without a socket: requests
/// answered by ``AlgoliaAPI`` on a server core over a catalog of two small indices, the
/// outputs a transport would send compared as a client would read them.
@Suite("Algolia API in process")
struct AlgoliaAPITests {
    /// Two embedded indices loaded from files, as the daemon loads them.
    static let catalog: Catalog = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fss-http-\(UUID().uuidString.prefix(8))")
        try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try! Data(
            #"""
            {"objectID":"m1","title":"Star Wars","year":1977}
            {"objectID":"m2","title":"Star Trek","year":1979}
            {"objectID":"m3","title":"Alien","year":1979}
            """#.utf8
        ).write(to: dir.appendingPathComponent("movies.ndjson"))
        try! Data(#"{"objectID":"p1","title":"Star lamp","price":20}"#.utf8).write(to: dir.appendingPathComponent("products.ndjson"))
        let config = try! DaemonConfig.parse(
            Array(
                #"""
                {"searchables":{"movies":{"data":"movies.ndjson","searchableAttributes":["title"],"attributesForFaceting":["year"]},
                 "products":{"data":"products.ndjson","searchableAttributes":["title"]}}}
                """#.utf8), baseDirectory: dir.path)
        return try! Catalog.build(config, registry: .embedded)
    }()

    static func api(keys: String? = nil) throws -> AlgoliaAPI {
        var http = HTTPConfig(listen: .tcp(host: "127.0.0.1", port: 7700))
        if let keys {
            let object = try #require(try JSONParser.parse(#"{"listen":"127.0.0.1:7700","keys":\#(keys)}"#).objectValue)
            http = try HTTPConfig.decode(object) { $0 }
        }
        return AlgoliaAPI(config: http, maxBodyBytes: 1 << 20, startedAt: "2026-01-01T00:00:00Z")
    }

    /// Everything the API sends for one request, in order.
    static func outputs(
        _ method: HTTPRequest.Method, _ target: String, body: String = "", headers: [String: String] = [:],
        api: AlgoliaAPI? = nil
    ) async throws -> [HTTPOutput] {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let request = HTTPRequest(
            method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
            headers: headers, body: Array(body.utf8), clientAddress: "127.0.0.1")
        let sent = Mutex<[HTTPOutput]>([])
        let api = try api ?? Self.api()
        await api.respond(request, core: ServerCore(catalog: catalog)) { output in sent.withLock { $0.append(output) } }
        return sent.withLock { $0 }
    }

    /// A whole response's status and JSON body.
    static func whole(
        _ method: HTTPRequest.Method, _ target: String, body: String = "", headers: [String: String] = [:],
        api: AlgoliaAPI? = nil
    ) async throws -> (status: Int, json: JSONObject) {
        let outputs = try await outputs(method, target, body: body, headers: headers, api: api)
        try #require(outputs.count == 1, "one whole response, not \(outputs.count) outputs")
        guard case .whole(let response) = outputs[0] else {
            Issue.record("not a whole response")
            throw CancellationError()
        }
        let json = try #require(try JSONParser.parse(response.wholeBody).objectValue, "a JSON object body")
        return (response.status, json)
    }

    @Test func aSearchOfOneIndexAnswersAlgoliasShape() async throws {
        let (status, json) = try await Self.whole(.post, "/1/indexes/movies/query", body: #"{"query":"star","hitsPerPage":1}"#)
        #expect(status == 200)
        #expect(json["nbHits"]?.numberValue == 2)
        #expect(json["hitsPerPage"]?.numberValue == 1)
        #expect(json["page"]?.numberValue == 0)
        #expect(json["nbPages"]?.numberValue == 2)
        #expect(json["query"]?.stringValue == "star")
        let hits = try #require(json["hits"]?.arrayValue)
        #expect(hits.count == 1)
        let hit = try #require(hits.first?.objectValue)
        #expect(["m1", "m2"].contains(hit["objectID"]?.stringValue ?? ""))
        #expect(hit["_highlightResult"]?.objectValue?["title"]?.objectValue?["value"]?.stringValue?.contains("<em>Star</em>") == true)
    }

    @Test func multipleQueriesAnswerInRequestOrder() async throws {
        let body = #"{"requests":[{"indexName":"products","params":"query=star"},{"indexName":"movies","params":"query=alien"}]}"#
        let (status, json) = try await Self.whole(.post, "/1/indexes/*/queries", body: body)
        #expect(status == 200)
        let results = try #require(json["results"]?.arrayValue).compactMap(\.objectValue)
        #expect(results.map { $0["index"]?.stringValue } == ["products", "movies"])
        #expect(results.map { $0["nbHits"]?.numberValue } == [1, 1])
    }

    @Test func anUnknownIndexOrRouteIsAnAlgoliaStyle404() async throws {
        let index = try await Self.whole(.post, "/1/indexes/nope/query", body: "{}")
        #expect(index.status == 404)
        #expect(index.json["status"]?.numberValue == 404)
        #expect(index.json["message"]?.stringValue?.contains("nope") == true)
        let route = try await Self.whole(.post, "/1/nowhere", body: "{}")
        #expect(route.status == 404)
        #expect(route.json["code"]?.stringValue == "unknown_route")
    }

    @Test func aMethodARouteDoesNotTakeIs405() async throws {
        let (status, _) = try await Self.whole(.delete, "/1/federated", body: "{}")
        #expect(status == 405)
    }

    @Test func keysAreAskedForOnceConfigured() async throws {
        let api = try Self.api(keys: #"[{"value":"k-search","acl":["search"],"indexes":["movies"]}]"#)
        let none = try await Self.whole(.post, "/1/indexes/movies/query", body: #"{"query":"star"}"#, api: api)
        #expect(none.status == 403)
        let good = try await Self.whole(
            .post, "/1/indexes/movies/query", body: #"{"query":"star"}"#,
            headers: ["x-algolia-api-key": "k-search"], api: api)
        #expect(good.status == 200)
        // A key limited to `movies` does not reach `products`.
        let other = try await Self.whole(
            .post, "/1/indexes/products/query", body: #"{"query":"star"}"#,
            headers: ["x-algolia-api-key": "k-search"], api: api)
        #expect(other.status == 403)
    }

    @Test func aFederatedStreamSendsEachIndexThenMergedThenDoneAsEvents() async throws {
        let outputs = try await Self.outputs(.post, "/1/federated/stream", body: #"{"query":"star","indices":["movies","products"]}"#)
        guard case .head(let head)? = outputs.first else {
            Issue.record("the stream has no head")
            return
        }
        #expect(head.status == 200)
        #expect(head.headers.contains { $0.name.lowercased() == "content-type" && $0.value.hasPrefix("text/event-stream") })
        guard case .end? = outputs.last else {
            Issue.record("the stream does not end")
            return
        }
        let types = try outputs.dropFirst().dropLast().map { output -> String? in
            guard case .chunk(let bytes) = output else { return nil }
            let text = String(decoding: bytes, as: UTF8.self)
            try #require(text.hasPrefix("data: ") && text.hasSuffix("\n\n"), "an event: \(text.prefix(80))")
            return try JSONParser.parse(String(text.dropFirst(6).dropLast(2))).objectValue?["type"]?.stringValue
        }
        #expect(types == ["results", "results", "merged", "done"])
    }

    @Test func aQuickSearchAnsweredAtOnceMatchesTheTaskPath() async throws {
        let api = try Self.api()
        let request = HTTPRequest(method: .post, path: "/1/indexes/movies/query", body: Array(#"{"query":"star"}"#.utf8))
        let now = try #require(api.respondNow(request, core: ServerCore(catalog: Self.catalog), quick: { _ in true }))
        let later = try await Self.whole(.post, "/1/indexes/movies/query", body: #"{"query":"star"}"#, api: api)
        var nowJSON = try #require(try JSONParser.parse(now.wholeBody).objectValue)
        var laterJSON = later.json
        // Only the time taken may differ.
        for timing in ["processingTimeMS", "processingTimingsMS"] {
            nowJSON[timing] = nil
            laterJSON[timing] = nil
        }
        #expect(now.status == later.status)
        #expect(JSONValue.object(nowJSON) == JSONValue.object(laterJSON))
    }
}
