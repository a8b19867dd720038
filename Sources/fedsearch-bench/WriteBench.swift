#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchClient
import FederatedSearchCore
import SocketTestClient

/// `fedsearch-bench --writes`: durable import throughput (documents/s through the real
/// `fedsearch import`, batches of 1,000, for the products, movies and 100k benchmark corpus
/// files) and the latency of a query mix on the demo indices while movies are imported into a
/// third index, against the same mix on an idle daemon. Medians of `runs` runs.
enum WriteBench {
    struct Dataset {
        let index: String
        let file: String
        let settings: JSONObject
    }

    /// The full datasets (the demo config's data files are samples of them).
    static let fullData = ["products": "../shared/datasets/products/products.ndjson", "movies": "../shared/datasets/movies/movies.ndjson"]

    static func run(binDir: String, configPath: String, corpus: String, runs: Int, queryCount: Int, inFlight: Int) throws {
        let work = "/tmp/fedsearch-writebench-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }

        // The demo config, made durable, plus one empty index per dataset to import into.
        let demoBytes = FileManager.default.contents(atPath: configPath).map { [UInt8]($0) } ?? []
        guard case .object(var config) = try JSONParser.parse(demoBytes), case .object(var searchables)? = config["searchables"] else {
            throw BenchError("\(configPath): not a daemon config")
        }
        let base = URL(fileURLWithPath: configPath).deletingLastPathComponent().path
        var datasets: [Dataset] = []
        for name in ["products", "movies"] {
            guard case .object(var s)? = searchables[name], let data = s["data"]?.stringValue else { continue }
            let file = data.hasPrefix("/") ? data : "\(base)/\(data)"
            s["data"] = .string(file)
            searchables[name] = .object(s)
            var settings = s
            settings["data"] = nil
            settings["backend"] = nil
            settings["timeoutMs"] = nil
            let full = fullData[name].flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil } ?? file
            datasets.append(Dataset(index: "import_\(name)", file: full, settings: settings))
        }
        if FileManager.default.fileExists(atPath: corpus) {
            datasets.append(
                Dataset(
                    index: "import_corpus", file: corpus,
                    settings: [
                        "searchableAttributes": ["title"], "attributesForFaceting": ["category", "price"],
                    ]))
        } else {
            print(
                "(no benchmark corpus at \(corpus): run `python3 ../shared/bench/corpus.py --export \(URL(fileURLWithPath: corpus).deletingLastPathComponent().path)`)"
            )
        }
        for d in datasets { searchables[d.index] = .object(d.settings) }
        let socket = "\(work)/d.sock"
        config["searchables"] = .object(searchables)
        config["socket"] = .string(socket)
        config["dataDir"] = .string("\(work)/data")
        config["logLevel"] = "warning"
        let configFile = "\(work)/config.json"
        try JSONWriter.string(.object(config)).write(toFile: configFile, atomically: true, encoding: .utf8)

        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "\(binDir)/fedsearchd")
        daemon.arguments = ["--config", configFile]
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try waitForDaemon(socket)
        let admin = try SocketConnection(path: socket, timeoutSeconds: 120)

        print("fedsearch-bench --writes: durable import, batches of 1,000, \(inFlight) in flight, medians of \(runs) runs")
        print("dataset            documents   seconds   documents/s")
        for d in datasets {
            var seconds: [Double] = []
            var count = 0
            for _ in 0..<runs {
                _ = try admin.roundTrip(["id": "c", "op": "clearIndex", "index": .string(d.index)])
                let start = ContinuousClock.now
                try importFile(binDir: binDir, socket: socket, index: d.index, file: d.file, inFlight: inFlight).waitUntilExit()
                seconds.append(microseconds(since: start) / 1e6)
                count = try documentCount(admin, d.index)
            }
            let s = seconds.sorted()[seconds.count / 2]
            let name = d.index.dropFirst("import_".count).padding(toLength: 16, withPad: " ", startingAt: 0)
            print("\(name)  \(String(count).leftPad(10))  \(String(format: "%8.2f", s))   \(String(Int(Double(count) / s)).leftPad(11))")
        }

        // Latency of the demo mix (products and movies), idle and during a movies import.
        guard let movies = datasets.first(where: { $0.index == "import_movies" }) else { return }
        var titles: [String: [String]] = [:]
        for name in ["products", "movies"] {
            for f in try admin.roundTrip([
                "id": "t", "query": "", "indices": [.string(name)],
                "params": ["hitsPerPage": 1000, "attributesToRetrieve": ["title"], "attributesToHighlight": []],
            ]) {
                if case .results(_, _, let r) = f { titles[name] = r.hits.compactMap { $0.attributes["title"]?.stringValue } }
            }
        }
        let queries = QuerySet.make(titles: titles, count: queryCount, indices: ["products", "movies"], multiIndex: false)
        let requests: [[UInt8]] = queries.enumerated().map { i, q in
            encodedLine([
                "id": .string(String(i)), "query": .string(q.text), "indices": .array(q.indices.map { .string($0) }),
                "params": ["hitsPerPage": 10],
            ])
        }
        let client = try SocketConnection(path: socket, timeoutSeconds: 30)
        for r in requests.prefix(300) { _ = try rawRoundTrip(client, r) }
        var idle: [LatencySummary] = []
        var busy: [LatencySummary] = []
        var busyCounts: [Int] = []
        for _ in 0..<runs {
            idle.append(try measure(client, requests, while: nil).summary)
            _ = try admin.roundTrip(["id": "c", "op": "clearIndex", "index": .string(movies.index)])
            let importer = try importFile(binDir: binDir, socket: socket, index: movies.index, file: movies.file, inFlight: inFlight)
            let during = try measure(client, requests, while: importer)
            importer.waitUntilExit()
            busy.append(during.summary)
            busyCounts.append(during.count)
        }
        let i = LatencySummary.median(idle)
        let b = LatencySummary.median(busy)
        print("query mix (\(queryCount) queries, products and movies, 1 client)   p50 µs   p99 µs")
        print("idle                                                     \(fmt(i.p50).leftPad(6))   \(fmt(i.p99).leftPad(6))")
        print(
            "while importing movies (\(busyCounts.sorted()[busyCounts.count / 2]) queries ran)                  \(fmt(b.p50).leftPad(6))   \(fmt(b.p99).leftPad(6))"
        )
        print("p99 during import / idle p99: \(String(format: "%.2f", b.p99 / max(i.p99, 0.001)))")
    }

    /// Starts `fedsearch import` (its progress lines discarded).
    static func importFile(binDir: String, socket: String, index: String, file: String, inFlight: Int) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "\(binDir)/fedsearch")
        p.arguments = ["--socket", socket, "import", index, file, "--batch", "1000", "--in-flight", String(inFlight)]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Runs the requests in a loop: once through when `importer` is nil, else until it exits
    /// (at least once through the set's first 100).
    static func measure(_ c: SocketConnection, _ requests: [[UInt8]], while importer: Process?) throws -> (
        summary: LatencySummary, count: Int
    ) {
        var samples: [Double] = []
        let start = ContinuousClock.now
        var i = 0
        while importer == nil ? i < requests.count : (importer!.isRunning || i < 100) {
            let t = ContinuousClock.now
            guard try rawRoundTrip(c, requests[i % requests.count]) else { throw BenchError("the daemon closed the connection") }
            samples.append(microseconds(since: t))
            i += 1
        }
        return (LatencySummary(samples: samples, seconds: microseconds(since: start) / 1e6), samples.count)
    }

    static func documentCount(_ c: SocketConnection, _ index: String) throws -> Int {
        for f in try c.roundTrip(["id": "i", "op": "indices"]) {
            guard case .info(_, _, let p) = f else { continue }
            for e in p["indices"]?.arrayValue ?? [] where e.objectValue?["name"]?.stringValue == index {
                return e.objectValue?["documents"]?.intValue ?? 0
            }
        }
        return 0
    }

    static func waitForDaemon(_ socket: String) throws {
        for _ in 0..<1200 {
            if let c = try? SocketConnection(path: socket, timeoutSeconds: 5), (try? c.roundTrip(["id": "r", "op": "ping"])) != nil {
                return
            }
            usleep(50_000)
        }
        throw BenchError("the daemon did not start")
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
