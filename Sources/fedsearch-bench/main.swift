#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchDaemon
import FederatedSearchServer
import FederatedSearchEngine
import Synchronization
import SocketTestClient

/// `fedsearch-bench`: end-to-end latency over the daemon's socket with 1, 4 and 16 clients,
/// against the same queries called in-process. Medians of `--runs` runs (default 3).
/// In process, a request's indices are searched one after another, as the daemon's fan-out
/// runs in-memory sources.
///
/// usage: fedsearch-bench --bin-dir DIR [--config FILE] [--runs N] [--queries N] [--params JSON]
///        [--client-poll-micros N] [--dump-requests FILE | --in-process-only]
///        fedsearch-bench --http --bin-dir DIR [--corpus-dir DIR] [--runs N] [--queries N]
///        fedsearch-bench --writes --bin-dir DIR [--config FILE] [--corpus FILE] [--runs N] [--queries N] [--in-flight N]
///        fedsearch-bench --updates --bin-dir DIR [--corpus-dir DIR] [--rate N] [--seconds N] [--in-flight N]
///                        [--discovered-attributes]
var binDir = ""
var writes = false
/// `--http`: the HTTP API beside the socket and Typesense (``HTTPBench``).
var httpBench = false
/// `--updates`: a large durable index taking writes (``UpdateBench``).
var updates = false
/// `--discovered-attributes`: the `--updates` indices without `searchableAttributes`.
var discoveredAttributes = false
var writeRate = 200
var writeSeconds = 60
var corpusDir = "/tmp/fedsearch-bench/corpus"
var corpusPath = "/tmp/fedsearch-bench/corpus/docs.ndjson"
var inFlight = 128
var configPath = "Configs/fedsearchd.json"
var runs = 3
var queryCount = 2000
var extraParams = "{}"
var dumpRequests = ""
var inProcessOnly = false
/// `--library-only`: the client library's set alone (with the daemon).
var libraryOnly = false
/// `--decode-file FILE`: decode FILE's frame lines (answers the daemon sent, one frame per
/// line) as the client connection does, and report the time per byte; no daemon.
var decodeFile = ""
/// How long the polling client's reads poll before sleeping (its set's row).
var clientPollMicros = 2000
var args = CommandLine.arguments.dropFirst()
while let a = args.first {
    args = args.dropFirst()
    if a == "--writes" {
        writes = true
        continue
    }
    if a == "--updates" {
        updates = true
        continue
    }
    if a == "--http" {
        httpBench = true
        continue
    }
    if a == "--discovered-attributes" {
        discoveredAttributes = true
        continue
    }
    if a == "--in-process-only" {
        inProcessOnly = true
        continue
    }
    if a == "--library-only" {
        libraryOnly = true
        continue
    }
    guard let v = args.first else {
        writeToStandardError("fedsearch-bench: \(a) needs a value\n")
        exit(2)
    }
    args = args.dropFirst()
    switch a {
    case "--bin-dir": binDir = v
    case "--config": configPath = v
    case "--runs": runs = Int(v) ?? 3
    case "--queries": queryCount = Int(v) ?? 2000
    case "--params": extraParams = v
    case "--corpus": corpusPath = v
    case "--corpus-dir": corpusDir = v
    case "--in-flight": inFlight = Int(v) ?? 128
    case "--dump-requests": dumpRequests = v
    case "--client-poll-micros": clientPollMicros = Int(v) ?? 2000
    case "--decode-file": decodeFile = v
    case "--rate": writeRate = Int(v) ?? 200
    case "--seconds": writeSeconds = Int(v) ?? 60
    default:
        writeToStandardError("fedsearch-bench: unknown option \(a)\n")
        exit(2)
    }
}

if !decodeFile.isEmpty {
    guard let bytes = FileManager.default.contents(atPath: decodeFile) else {
        writeToStandardError("fedsearch-bench: cannot read \(decodeFile)\n")
        exit(2)
    }
    let lines = Array(bytes).split(separator: 0x0A).map { Array($0) }
    let total = lines.reduce(0) { $0 + $1.count }
    var passes: [Double] = []
    for _ in 0..<max(runs, 1) * 10 {
        var decoder = AnswerDecoder()
        let start = ContinuousClock.now
        for line in lines { _ = try? decoder.decode(line) }
        passes.append(microseconds(since: start) * 1000 / Double(total))
    }
    print(
        "decoding \(lines.count) frame lines (\(total) bytes): median \(String(format: "%.2f", median(passes))) ns/byte, "
            + "best \(String(format: "%.2f", passes.min()!)) ns/byte")
    exit(0)
}

if httpBench {
    do {
        try HTTPBench.run(binDir: binDir.isEmpty ? "." : binDir, corpusDir: corpusDir, runs: runs, queryCount: min(queryCount, 1000))
        exit(0)
    } catch {
        writeToStandardError("fedsearch-bench: \(error)\n")
        exit(1)
    }
}

if updates {
    do {
        try UpdateBench.run(
            binDir: binDir.isEmpty ? "." : binDir, corpusDir: corpusDir, rate: writeRate, seconds: writeSeconds, inFlight: inFlight,
            discoveredAttributes: discoveredAttributes)
        exit(0)
    } catch {
        writeToStandardError("fedsearch-bench: \(error)\n")
        exit(1)
    }
}

if writes {
    do {
        try WriteBench.run(
            binDir: binDir.isEmpty ? "." : binDir, configPath: configPath, corpus: corpusPath, runs: runs,
            queryCount: queryCount, inFlight: inFlight)
        exit(0)
    } catch {
        writeToStandardError("fedsearch-bench: \(error)\n")
        exit(1)
    }
}

// In-process: the same catalog the daemon builds.
guard let configBytes = FileManager.default.contents(atPath: configPath).map({ [UInt8]($0) }) else {
    writeToStandardError("fedsearch-bench: cannot read the config \(configPath)\n")
    exit(2)
}
let folder = (configPath as NSString).deletingLastPathComponent
let config: DaemonConfig
let catalog: Catalog
do {
    config = try DaemonConfig.parse(configBytes, baseDirectory: folder.isEmpty ? "." : folder)
    catalog = try Catalog.build(config, registry: .standard)
} catch {
    writeToStandardError("fedsearch-bench: \(configPath): \(error)\n")
    exit(2)
}
var titles: [String: [String]] = [:]
let names = catalog.entries.map(\.id.index)
for e in catalog.entries {
    guard let index = e.searchable as? EmbeddedIndex else { continue }
    let all = try index.searchSync(SearchQuery(text: "", parameters: try SearchParameters.decode(["hitsPerPage": 1000])))
    titles[e.id.index] = all.hits.compactMap { $0.attributes["title"]?.stringValue }
}
let singleQueries = QuerySet.make(titles: titles, count: queryCount, indices: names, multiIndex: false)
let multiQueries = QuerySet.make(titles: titles, count: queryCount, indices: names, multiIndex: true)
var paramsBuilder: JSONObject = ["hitsPerPage": 10]
for e in try JSONParser.parse(extraParams).objectValue ?? [:] { paramsBuilder[e.key] = e.value }
let paramsObject = paramsBuilder
let params = try SearchParameters.decode(paramsObject)

/// The request line the socket runs send for query `i` of a set.
func requestLine(_ i: Int, _ q: QuerySet.Query) -> JSONValue {
    [
        "id": .string(String(i)), "query": .string(q.text), "indices": .array(q.indices.map { .string($0) }),
        "params": .object(paramsObject),
    ]
}

// `--dump-requests FILE`: the single-index then the all-index request lines, one per line, so
// another client (socat, a C loop) can replay exactly what this benchmark sends.
if !dumpRequests.isEmpty {
    var out: [UInt8] = []
    for set in [singleQueries, multiQueries] {
        for (i, q) in set.enumerated() {
            out += JSONWriter.bytes(requestLine(i, q))
            out.append(0x0A)
        }
    }
    guard FileManager.default.createFile(atPath: dumpRequests, contents: Data(out)) else {
        writeToStandardError("fedsearch-bench: cannot write \(dumpRequests)\n")
        exit(1)
    }
    exit(0)
}

/// One request in process: its indices one after another, as the daemon's fan-out runs
/// in-memory sources.
@Sendable func searchInProcess(_ q: QuerySet.Query) throws {
    for name in q.indices {
        guard let index = catalog.entry(name)?.searchable as? EmbeddedIndex else { continue }
        _ = try index.searchSync(SearchQuery(text: q.text, parameters: params))
    }
}

func inProcess(_ queries: [QuerySet.Query]) throws -> LatencySummary {
    var samples: [Double] = []
    samples.reserveCapacity(queries.count)
    let start = ContinuousClock.now
    for q in queries {
        let t = ContinuousClock.now
        try searchInProcess(q)
        samples.append(microseconds(since: t))
    }
    return LatencySummary(samples: samples, seconds: microseconds(since: start) / 1e6)
}

/// The same requests in process through the server core, as ``RequestReplay`` drives it (the
/// request line decoded, planned, fanned out, merged and its frames encoded as the daemon
/// does, with no socket and no loop): the socket's figures less the transport.
func throughServerCore(_ queries: [QuerySet.Query]) async -> LatencySummary {
    let lines = queries.enumerated().map { i, q in JSONWriter.bytes(requestLine(i, q)) }
    var samples: [Double] = []
    samples.reserveCapacity(lines.count)
    let start = ContinuousClock.now
    for line in lines {
        let t = ContinuousClock.now
        _ = await RequestReplay.answer(line, catalog: catalog)
        samples.append(microseconds(since: t))
    }
    return LatencySummary(samples: samples, seconds: microseconds(since: start) / 1e6)
}

/// Runs `work(t)` on `count` threads at once (t in 0..<count), each returning its samples;
/// the summary of them all, over the wall time until the last thread ends.
func onThreads(_ count: Int, _ work: @escaping @Sendable (Int) -> [Double]) -> LatencySummary {
    let box = SampleBox(count)
    let done = DispatchSemaphore(value: 0)
    let start = ContinuousClock.now
    for t in 0..<count {
        let thread = Thread {
            defer { done.signal() }
            let samples = work(t)
            box.perClient.withLock { $0[t] = samples }
        }
        thread.start()
    }
    for _ in 0..<count { done.wait() }
    return LatencySummary(samples: box.perClient.withLock { $0.flatMap { $0 } }, seconds: microseconds(since: start) / 1e6)
}

/// The same queries in process from `threads` threads at once, sharing the catalog as the
/// daemon's tasks do: the engine's own ceiling for the socket sets' queries/s.
func inProcess(_ queries: [QuerySet.Query], threads: Int) throws -> LatencySummary {
    let failure = Mutex<String?>(nil)
    let summary = onThreads(threads) { t in
        var samples: [Double] = []
        for i in stride(from: t, to: queries.count, by: threads) {
            let began = ContinuousClock.now
            do { try searchInProcess(queries[i]) } catch {
                failure.withLock { $0 = $0 ?? "'\(queries[i].text)': \(error)" }
                break
            }
            samples.append(microseconds(since: began))
        }
        return samples
    }
    if let failure = failure.withLock({ $0 }) { throw BenchFailure(description: "in-process search failed: \(failure)") }
    return summary
}

/// A search of the parallel in-process set that failed.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

/// Collects per-thread samples from client or query threads.
final class SampleBox: Sendable {
    let perClient: Mutex<[[Double]]>
    init(_ n: Int) { perClient = Mutex(Array(repeating: [], count: n)) }
}

/// Threads for the parallel in-process set: one per core.
let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

// `--in-process-only`: the in-process sets alone, with no daemon (for profilers such as
// callgrind, which count the engine's instructions).
if inProcessOnly {
    for (label, queries) in [("single-index", singleQueries), ("all-index", multiQueries)] {
        let s = try inProcess(queries)
        print("\(label) in-process: p50 \(Int(s.p50)) µs, p99 \(Int(s.p99)) µs")
    }
    exit(0)
}

// Over the socket: start the real daemon on a temporary socket.
let socketPath = "/tmp/fedsearch-bench-\(getpid()).sock"
let daemon = Process()
daemon.executableURL = URL(fileURLWithPath: binDir.isEmpty ? "fedsearchd" : "\(binDir)/fedsearchd")
daemon.arguments = ["--config", configPath, "--socket", socketPath, "--log-level", "warning"]
try daemon.run()
defer { daemon.terminate() }
var ready = false
for _ in 0..<600 where !ready {
    if let c = try? SocketConnection(path: socketPath, timeoutSeconds: 5), (try? c.roundTrip(["id": "r", "op": "ping"])) != nil {
        ready = true
    } else {
        usleep(50_000)
    }
}
guard ready else {
    writeToStandardError("fedsearch-bench: the daemon did not start\n")
    daemon.terminate()
    exit(1)
}

/// Runs `queries` over the socket from `clients` threads, each waiting for each answer; with
/// `busyPollMicros`, the clients poll their sockets for that long before sleeping.
func overSocket(_ queries: [QuerySet.Query], clients: Int, busyPollMicros: Int = 0) throws -> LatencySummary {
    let requests: [[UInt8]] = queries.enumerated().map { i, q in encodedLine(requestLine(i, q)) }
    return onThreads(clients) { c in
        guard let conn = try? SocketConnection(path: socketPath, timeoutSeconds: 30, busyPollMicros: busyPollMicros) else {
            return []
        }
        var samples: [Double] = []
        for i in stride(from: c, to: requests.count, by: clients) {
            let t = ContinuousClock.now
            guard (try? rawRoundTrip(conn, requests[i])) == true else { return [] }
            samples.append(microseconds(since: t))
        }
        return samples
    }
}

func fmt(_ v: Double) -> String { String(Int(v.rounded())) }
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

// The client library's own cost per keystroke: the all-index queries through a
// FederatedSearcher and its interactors, against the same request lines sent raw.
@MainActor func libraryFigures() async throws {
    let texts = multiQueries.map(\.text)
    _ = try await LibraryBench.latency(socket: socketPath, indices: names, texts: Array(texts.prefix(200)), params: params, gap: .zero)
    func report(_ label: String, gap: Duration) async throws {
        var latencies: [LibraryBench.Latency] = []
        for _ in 0..<runs {
            latencies.append(try await LibraryBench.latency(socket: socketPath, indices: names, texts: texts, params: params, gap: gap))
        }
        let lib = LatencySummary.median(latencies.map(\.library))
        let raw = LatencySummary.median(latencies.map(\.raw))
        print(
            "library, \(label): \(names.count)-index keystroke p50 \(fmt(lib.p50)) µs (p99 \(fmt(lib.p99))) through "
                + "FederatedSearcher and its interactors; raw round trip p50 \(fmt(raw.p50)) µs (p99 \(fmt(raw.p99))); the library's "
                + "cost at p50 \(fmt(lib.p50 - raw.p50)) µs = \(String(format: "%.0f", 100 * (lib.p50 - raw.p50) / max(raw.p50, 0.001)))% "
                + "of the round trip")
    }
    try await report("keystrokes 2 ms apart", gap: .milliseconds(2))
    try await report("back to back", gap: .zero)
    var cpus: [LibraryBench.CPU] = []
    for _ in 0..<runs { cpus.append(try await LibraryBench.cpu(socket: socketPath, indices: names, texts: texts, params: params)) }
    var handOffs: [HandOffBench.Result] = []
    for _ in 0..<runs { handOffs.append(await HandOffBench.median()) }
    print(
        "library CPU: per keystroke \(fmt(median(cpus.map(\.library)))) µs against \(fmt(median(cpus.map(\.raw)))) µs raw, "
            + "of which decoding the answer's frames (\(cpus[0].bytesPerAnswer) bytes) \(fmt(median(cpus.map(\.decodeMicros)))) µs in process; "
            + "the same requests on DaemonConnection alone: \(fmt(median(cpus.map(\.connection)))) µs CPU each; "
            + "one hand-off from a thread to the idle main actor: \(fmt(median(handOffs.map(\.mainQueueSync)))) µs as a synchronous "
            + "main-queue block (the library's), \(fmt(median(handOffs.map(\.mainQueue)))) µs as an asynchronous one, "
            + "\(fmt(median(handOffs.map(\.stream)))) µs through an AsyncStream")
}
if libraryOnly {
    try await libraryFigures()
    daemon.terminate()  // exit() skips the defer
    daemon.waitUntilExit()
    exit(0)
}

var report: [(String, LatencySummary)] = []
/// The daemon's CPU per request (µs, from its threads' schedstat) over every run of a set.
var cpuPerRequest: [(String, Double)] = []
for (label, queries) in [("single-index", singleQueries), ("all-index", multiQueries)] {
    _ = try inProcess(queries)  // warm-up
    _ = try overSocket(Array(queries.prefix(300)), clients: 1)
    report.append(("\(label) in-process", LatencySummary.median(try (0..<runs).map { _ in try inProcess(queries) })))
    report.append(
        ("\(label) in-process, \(cores) threads", LatencySummary.median(try (0..<runs).map { _ in try inProcess(queries, threads: cores) }))
    )
    var core: [LatencySummary] = []
    for _ in 0..<runs { core.append(await throughServerCore(queries)) }
    report.append(("\(label) server core in process", LatencySummary.median(core)))
    // The polling client (last) waits for its answers without sleeping: its figure leaves out
    // the wake-up of the client's own thread, which is the client's cost, not the daemon's.
    // Single-index only: a search over several indices may run a task per index, and a
    // client spinning on a core takes it from the daemon (on 2 cores, p50 x2).
    let polling = label == "single-index" ? [(1, true)] : []
    for (clients, polling) in [(1, false), (4, false), (16, false)] + polling {
        let before = KeystrokeBench.cpuMilliseconds(pid: daemon.processIdentifier)
        let med = LatencySummary.median(
            try (0..<runs).map { _ in
                try overSocket(queries, clients: clients, busyPollMicros: polling ? clientPollMicros : 0)
            })
        let ms = KeystrokeBench.cpuMilliseconds(pid: daemon.processIdentifier) - before
        let name = "\(label) socket, \(clients) \(polling ? "polling " : "")client\(clients == 1 ? "" : "s")"
        report.append((name, med))
        cpuPerRequest.append((name, ms * 1000 / Double(queries.count * runs)))
    }
}

print("fedsearch-bench: \(config.searchables.count) indices from \(configPath), \(queryCount) queries per set, medians of \(runs) runs")
print("set                                       p50 µs    p99 µs    queries/s   daemon CPU µs/request")
for (label, s) in report {
    let pad = label.padding(toLength: 40, withPad: " ", startingAt: 0)
    let cpu = cpuPerRequest.first { $0.0 == label }.map { fmt($0.1).leftPad(9) } ?? ""
    print("\(pad)  \(fmt(s.p50).leftPad(7))   \(fmt(s.p99).leftPad(7))   \(fmt(s.queriesPerSecond).leftPad(9))   \(cpu)")
}
// Keystrokes: 20-letter typing sequences with and without a session, 5 ms apart (what #4 asks),
// and 0.5 ms apart (a burst: a paste, or keystrokes queued behind a slow network), where a
// keystroke can arrive while the previous one's search still runs.
let typedWords = (titles.keys.sorted().flatMap { titles[$0]! }.flatMap { QuerySet.words($0) }.filter { $0.count >= 8 }.prefix(400))
let sequence = Array(Set(typedWords)).sorted().prefix(25).map { String($0.prefix(20)) }
struct KeystrokeFigures {
    var withSession: [Double] = []
    var withoutSession: [Double] = []
    var superseded: [Int] = []
}
var keystrokeFigures: [(micros: UInt32, figures: KeystrokeFigures)] = []
for interval: UInt32 in [5000, 500] {
    var f = KeystrokeFigures()
    for _ in 0..<runs {
        f.withoutSession.append(
            try KeystrokeBench.run(
                socket: socketPath, daemonPID: daemon.processIdentifier, words: sequence, indices: names, session: false,
                intervalMicros: interval
            ).cpuMs)
        let typed = try KeystrokeBench.run(
            socket: socketPath, daemonPID: daemon.processIdentifier, words: sequence, indices: names, session: true,
            intervalMicros: interval)
        f.withSession.append(typed.cpuMs)
        f.superseded.append(typed.superseded)
    }
    keystrokeFigures.append((interval, f))
}
let keystrokes = sequence.reduce(0) { $0 + $1.count }
for label in ["single-index", "all-index"] {
    let inproc = report.first { $0.0 == "\(label) in-process" }!.1
    let one = report.first { $0.0 == "\(label) socket, 1 client" }!.1
    let polling = report.first { $0.0 == "\(label) socket, 1 polling client" }?.1
    print(
        "\(label): daemon overhead at p50 (1 client minus in-process): \(fmt(one.p50 - inproc.p50)) µs; ratio \(String(format: "%.2f", one.p50 / max(inproc.p50, 0.001)))"
            + (polling.map { "; with the client polling: \(fmt($0.p50 - inproc.p50)) µs" } ?? ""))
}

// The federation's own cost: the all-index queries asked of each index alone (1 client,
// medians of the runs), against the same queries asked of all of them at once.
if names.count > 1 {
    var single: [(String, Double)] = []
    for name in names {
        let alone = multiQueries.map { QuerySet.Query(text: $0.text, indices: [name]) }
        single.append((name, LatencySummary.median(try (0..<runs).map { _ in try overSocket(alone, clients: 1) }).p50))
    }
    let slowest = single.max { $0.1 < $1.1 }!
    let all = report.first { $0.0 == "all-index socket, 1 client" }!.1
    print(
        "federation: \(names.count)-index p50 \(fmt(all.p50)) µs; each index alone "
            + single.map { "\($0.0) \(fmt($0.1))" }.joined(separator: ", ")
            + " µs; own cost (minus the slowest alone) \(fmt(all.p50 - slowest.1)) µs")
}

try await libraryFigures()

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}
for (interval, f) in keystrokeFigures {
    print(
        "keystrokes: \(keystrokes) typed \(String(format: "%g", Double(interval) / 1000)) ms apart over \(names.count) indices; "
            + "daemon CPU (median of \(runs)): \(String(format: "%.1f", median(f.withoutSession))) ms without a session, "
            + "\(String(format: "%.1f", median(f.withSession))) ms with one "
            + "(\(String(format: "%.2f", median(f.withSession) / max(median(f.withoutSession), 0.001))) of the work); "
            + "superseded per run: \(f.superseded.map(String.init).joined(separator: ", "))")
}
