import Testing
import Foundation
import FederatedSearchCore
@testable import FederatedSearchBackends
import BackendTestSupport

/// The `http` backend against a real local HTTP service (Tests/BackendTestSupport/search_server.py):
/// 1. results map by JSON paths, with scores normalised to [0, 1] and facets;
/// 2. values are percent-encoded in the URL and typed in a JSON body;
/// 3. secret headers are sent but never appear in errors;
/// 4. HTTP statuses, non-JSON and wrongly shaped answers become coded source errors;
/// 5. connections are reused; cancelling a search cancels its request;
/// 6. with `attributesForFaceting` listed, a facet condition on another attribute matches
///    nothing and is not sent (the service would not know it).
@Suite(.serialized)
struct HTTPBackendTests {
    static let mapping: JSONValue = [
        "hits": "results.items", "nbHits": "results.total", "objectID": "id", "attributes": "doc",
        "score": "score", "maxScore": "results.max_score", "facets": "results.facets",
    ]

    func backend(_ url: String, _ extra: JSONObject = [:], environment: [String: String] = [:]) throws -> HTTPBackend {
        var options: JSONObject = ["url": .string(url), "response": Self.mapping]
        for e in extra { options[e.key] = e.value }
        let config = try HTTPBackendConfig(
            BackendConfig(name: "remote", options: options, path: "searchables.remote"),
            environment: environment)
        return HTTPBackend(name: "remote", config: config)
    }

    func query(_ text: String, _ params: JSONObject = [:]) throws -> SearchQuery {
        SearchQuery(text: text, parameters: try SearchParameters.decode(params))
    }

    @Test func mapsHitsScoresAndFacets() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let b = try backend("\(server.baseURL)/search?q={query}&page={page}&size={hitsPerPage}")
        let r = try await b.search(try query("sta", ["hitsPerPage": 2, "facets": ["genre"]]))
        #expect(r.nbHits == 3)
        #expect(r.nbPages == 2)
        #expect(r.hits.map(\.objectID) == ["1", "2"])
        #expect(r.hits.map(\.rankingScore) == [1.0, 0.9])
        #expect(r.hits[0].attributes["title"] == "Star Wars")
        #expect(r.facets == [FacetCounts(attribute: "genre", values: [("SF", 2), ("Fantasy", 1)])])
        #expect(r.index == "remote")
        let page2 = try await b.search(try query("sta", ["hitsPerPage": 2, "page": 1]))
        #expect(page2.hits.map(\.objectID) == ["3"])
    }

    @Test func filtersOnAttributesTheServiceDoesNotFacetMatchNothing() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let b = try backend("\(server.baseURL)/echo?q={query}&f={filters}", ["attributesForFaceting": ["genre"]])
        let none = try await b.search(try query("x", ["facetFilters": [["genres:Drama"]]]))
        #expect(none.nbHits == 0 && none.hits.isEmpty)
        let kept = try await b.search(try query("x", ["filters": "genre:SF AND NOT genres:Drama"]))
        #expect(kept.hits.first?.attributes["query"]?.objectValue?["f"] == "genre:SF")
        let everything = try await b.search(try query("x", ["filters": "NOT genres:Drama"]))
        #expect(everything.hits.first?.attributes["query"]?.objectValue?["f"] == "")
        // Without the list, filters go to the service as they are.
        let plain = try backend("\(server.baseURL)/echo?q={query}&f={filters}")
        let sent = try await plain.search(try query("x", ["facetFilters": [["genres:Drama"]]]))
        #expect(sent.hits.first?.attributes["query"]?.objectValue?["f"] == "genres:Drama")
    }

    @Test func percentEncodesUrlValuesAndTypesBodyValues() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let get = try backend(
            "\(server.baseURL)/echo?q={query}&f={filters}&n={hitsPerPage}",
            ["headers": ["X-Test": "plain"]])
        let text = "a&b=c d+é/?#"
        let r = try await get.search(try query(text, ["filters": "genre:SF"]))
        let doc = try #require(r.hits.first?.attributes)
        #expect(doc["query"]?.objectValue?["q"] == .string(text))
        #expect(doc["query"]?.objectValue?["f"] == "genre:SF")
        #expect(doc["path"]?.stringValue?.contains("q=a%26b%3Dc%20d%2B%C3%A9%2F%3F%23&") == true)
        #expect(doc["xtest"] == "plain")

        let post = try backend(
            "\(server.baseURL)/echo",
            [
                "method": "POST", "body": ["q": "{query}", "size": "{hitsPerPage}", "from": "{offset}", "label": "p{page1}"],
            ])
        let r2 = try await post.search(try query("x \"y\"", ["hitsPerPage": 5, "page": 2]))
        let body = try #require(r2.hits.first?.attributes["body"]?.objectValue)
        #expect(body == ["q": "x \"y\"", "size": 5, "from": 10, "label": "p3"])
    }

    @Test func secretHeaderIsSentAndNeverEchoed() async throws {
        let server = try SearchServerProcess(token: "s3cret-token")
        defer { server.stop() }
        let auth: JSONObject = ["headers": ["Authorization": ["env": "TEST_TOKEN", "prefix": "Bearer "]]]
        let good = try backend("\(server.baseURL)/search?q={query}", auth, environment: ["TEST_TOKEN": "s3cret-token"])
        #expect(try await good.search(try query("star")).nbHits == 3)
        #expect(good.config.headers.map(\.value.description) == ["<redacted>"])

        let bad = try backend("\(server.baseURL)/search?q={query}", auth, environment: ["TEST_TOKEN": "wrong-s3cret"])
        let error = await #expect(throws: SearchError.self) { try await bad.search(try query("star")) }
        #expect(error?.code == .backendHTTPError)
        #expect(error?.message.contains("HTTP 401") == true)
        #expect(error?.message.contains("s3cret") == false)
        #expect(error?.message.contains("q=star") == false)
    }

    @Test func secretFromFileAndMissingSecretNamesTheSourceOnly() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
        try "file-s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let b = try backend("http://127.0.0.1:1/x", ["headers": ["X-Key": ["file": .string(file.path)]]])
        #expect(b.config.headers.first?.value.isSecret == true)
        let request = try b.makeRequest(try query("q"))
        #expect(request.value(forHTTPHeaderField: "X-Key") == "file-s3cret")
        #expect(throws: SearchError(.invalidField, "searchables.remote.headers.X-Key.env: environment variable NOPE is not set")) {
            _ = try backend("http://127.0.0.1:1/x", ["headers": ["X-Key": ["env": "NOPE"]]])
        }
    }

    @Test func badStatusNotJsonAndBadShapeAreCodedErrors() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let e503 = await #expect(throws: SearchError.self) { try await backend("\(server.baseURL)/status/503").search(query("x")) }
        #expect(e503?.code == .backendHTTPError)
        #expect(e503?.message == "remote: HTTP 503 from GET \(server.baseURL)/status/503")
        let notJSON = await #expect(throws: SearchError.self) { try await backend("\(server.baseURL)/notjson").search(query("x")) }
        #expect(notJSON?.code == .backendBadResponse)
        let shape = await #expect(throws: SearchError.self) { try await backend("\(server.baseURL)/badshape").search(query("x")) }
        #expect(shape?.code == .backendBadResponse)
        #expect(shape?.message == "remote: response.results.items[0].id: missing")
    }

    @Test func unreachableHostIsABackendError() async throws {
        let server = try SearchServerProcess()
        let url = "\(server.baseURL)/search"
        server.stop()
        let e = await #expect(throws: SearchError.self) { try await backend(url).search(query("x")) }
        #expect(e?.code == .backendError)
    }

    @Test func connectionsAreReused() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let b = try backend("\(server.baseURL)/search?q={query}")
        let before = try server.stats()["connections"] ?? 0
        for _ in 0..<5 { _ = try await b.search(try query("star")) }
        let after = try server.stats()["connections"] ?? 0
        // One connection for the five searches, one for the stats request itself.
        #expect(after - before <= 2)
    }

    @Test func cancellingTheSearchCancelsTheRequest() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let b = try backend("\(server.baseURL)/slow?ms=60000")
        let q = try query("x")
        let task = Task { try await b.search(q) }
        #expect(try server.waitFor { $0["inflight"] == 1 })
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try server.waitFor { $0["disconnects"] == 1 })
    }

    @Test func configErrorsNameTheField() throws {
        #expect(
            throws: SearchError(
                .invalidField,
                "searchables.remote.url: unknown placeholder {nope}, expected one of {facets}, {filters}, {hitsPerPage}, {offset}, {page}, {page1}, {query}"
            )
        ) {
            _ = try backend("http://h/{nope}")
        }
        #expect(throws: SearchError(.invalidField, "searchables.remote.url: expected an http:// or https:// URL, got 'ftp://h/x'")) {
            _ = try backend("ftp://h/x")
        }
        #expect(
            throws: SearchError(
                .invalidField, "searchables.remote.response.hits: 'a[x]': expected an index or a quoted key in brackets at character 2")
        ) {
            _ = try backend("http://h/", ["response": ["hits": "a[x]"]])
        }
    }

    @Test func requestTimeoutIsTheTimeLeftRoundedUpToWholeSeconds() {
        #expect(HTTPBackend.timeoutInterval(until: nil) == 30)
        #expect(HTTPBackend.timeoutInterval(until: .now + .milliseconds(400)) == 1)
        #expect(HTTPBackend.timeoutInterval(until: .now + .milliseconds(2500)) == 3)
        #expect(HTTPBackend.timeoutInterval(until: .now - .seconds(1)) == 1)
    }

    @Test func scoresNormalise() {
        #expect(HTTPResponseMapping.normalise(5, max: 10) == 0.5)
        #expect(HTTPResponseMapping.normalise(20, max: 10) == 1)
        #expect(HTTPResponseMapping.normalise(1, max: nil) == 0.5)
        #expect(HTTPResponseMapping.normalise(-3, max: nil) == 0)
        #expect(HTTPResponseMapping.normalise(.infinity, max: nil) == 0)
    }
}
