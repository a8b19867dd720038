import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The `http` backend configured in JSON and served by the real daemon, against the real local
/// test HTTP service: results frames, HTTP errors and slow answers as per-source outcomes,
/// and a secret header read from the daemon's environment.
@Suite(.serialized)
struct HTTPBackendDaemonTests {
    static func http(_ url: String, _ extra: JSONObject = [:]) -> JSONValue {
        var o: JSONObject = [
            "backend": "http", "url": .string(url),
            "headers": ["Authorization": ["env": "FST_TOKEN", "prefix": "Bearer "]],
            "response": [
                "hits": "results.items", "nbHits": "results.total", "objectID": "id", "attributes": "doc",
                "score": "score", "maxScore": "results.max_score", "facets": "results.facets",
            ],
        ]
        for e in extra { o[e.key] = e.value }
        return .object(o)
    }

    @Test func httpSourcesAnswerFailAndTimeOutPerSource() throws {
        let server = try SearchServerProcess(token: "daemon-s3cret")
        defer { server.stop() }
        let base = server.baseURL
        // films and broken must answer within their deadline (the default otherwise, 1 s) from
        // a Python server on a loaded machine; only slow is about timing out.
        let d = try DaemonProcess(
            config: [
                "defaultTimeoutMs": 10_000,
                "searchables": [
                    "films": Self.http("\(base)/search?q={query}&page={page}&size={hitsPerPage}&filters={filters}"),
                    "broken": Self.http("\(base)/status/502"),
                    "slow": Self.http("\(base)/slow?ms=60000", ["timeoutMs": 300]),
                ],
            ], environment: ["FST_TOKEN": "daemon-s3cret"])
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip([
            "id": "q", "query": "sta", "indices": ["films", "broken", "slow"],
            "params": ["hitsPerPage": 2, "facets": ["genre"], "filters": "genre:SF"],
        ])
        let (status, sources) = try #require(frames.last?.doneValue, "no done: \(frames)")
        #expect(status == .partial)
        let byName = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.report) })
        #expect(byName["films"]?.status == .ok)
        #expect(byName["films"]?.nbHits == 2)
        #expect(byName["broken"]?.errorCode == .backendHTTPError)
        #expect(byName["slow"]?.status == .timeout)
        let results = frames.compactMap { f -> SearchResults? in
            if case .results(_, "films", let r) = f { return r }
            return nil
        }
        #expect(results.first?.hits.map(\.objectID) == ["1", "2"])
        #expect(results.first?.hits.allSatisfy { (0...1).contains($0.rankingScore) } == true)
        #expect(results.first?.facets.first?.values.map(\.value) == ["SF"])
        let errors = frames.compactMap { f -> SearchError? in
            if case .error(_, "broken"?, let e) = f { return e }
            return nil
        }
        #expect(errors.first?.message.contains("HTTP 502") == true)
        #expect(!frames.map { String(decoding: $0.line(), as: UTF8.self) }.joined().contains("daemon-s3cret"))
        // The slow request was abandoned by the daemon, not left running on the server.
        #expect(try server.waitFor { $0["disconnects"] == 1 })
    }

    @Test func missingSecretIsAConfigErrorNamingTheVariable() throws {
        #expect(throws: DaemonProcess.DaemonError.self) {
            _ = try DaemonProcess(config: ["searchables": ["films": Self.http("http://127.0.0.1:1/search")]])
        }
    }
}
