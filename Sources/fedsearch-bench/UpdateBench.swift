#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchClient
import FederatedSearchCore
import Synchronization
import SocketTestClient

/// `fedsearch-bench --updates`: how a durable index of the benchmark corpus takes writes
/// once it is large. The daemon imports the corpus file at start (one build), then:
/// 1. bulk import: the corpus again through `fedsearch import` into an empty second index, in
///    batches of 1,000 (documents/s, each batch acknowledged once durable and searchable);
/// 2. memory (the daemon's RSS) after that import and once its background merges are done;
/// 3. single-document upserts, one at a time (each answered once durable and searchable):
///    p50 and p99 of the time to the answer, new and existing objectIDs alike;
/// 4. a steady stream of single-document writes at `rate` per second for `seconds`, with one
///    client searching all along: its p50 and p99 against the same queries on the idle daemon,
///    both as the index was built at start and after the upserts.
/// With `discoveredAttributes`, the indices have no `searchableAttributes`: they search the
/// text attributes they find.
enum UpdateBench {
    static func run(binDir: String, corpusDir: String, rate: Int, seconds: Int, inFlight: Int, discoveredAttributes: Bool) throws {
        let work = "/tmp/fedsearch-updatebench-\(getpid())"
        try? FileManager.default.removeItem(atPath: work)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let corpus = "\(corpusDir)/docs.ndjson"
        guard FileManager.default.fileExists(atPath: corpus) else {
            throw BenchError(
                "no corpus at \(corpus): run `python3 ../shared/bench/corpus.py --export \(corpusDir)` (N_DOCS=1000000 for a million)")
        }
        var settings: JSONObject = ["searchableAttributes": ["title"], "attributesForFaceting": ["category", "price"]]
        if discoveredAttributes { settings["searchableAttributes"] = nil }
        var corpusIndex = settings
        corpusIndex["data"] = .string(corpus)
        // 1 and 2: bulk import into an empty index, then memory before and after the merges
        // it left; a daemon of its own, so that the figures below are of the corpus alone.
        let importSocket = "\(work)/i.sock"
        let importer = try launch(
            binDir: binDir, work: work, name: "import",
            config: [
                "socket": .string(importSocket), "dataDir": .string("\(work)/import-data"), "logLevel": "warning",
                "searchables": ["imported": .object(settings)],
            ])
        try WriteBench.waitForDaemon(importSocket)
        let importAdmin = try SocketConnection(path: importSocket, timeoutSeconds: 600)
        let importStart = ContinuousClock.now
        try WriteBench.importFile(binDir: binDir, socket: importSocket, index: "imported", file: corpus, inFlight: inFlight)
            .waitUntilExit()
        let importSeconds = microseconds(since: importStart) / 1e6
        let imported = try WriteBench.documentCount(importAdmin, "imported")
        let afterImport = rssMB(importer.processIdentifier)
        let segmentsAfterImport = try writeStats(importAdmin, "imported")["segments"]?.intValue ?? 0
        let mergeWait = ContinuousClock.now
        try waitForMerges(importAdmin, "imported")
        let mergedRSS = rssMB(importer.processIdentifier)
        let mergedSegments = try writeStats(importAdmin, "imported")["segments"]?.intValue ?? 0
        importer.terminate()
        importer.waitUntilExit()

        let socket = "\(work)/d.sock"
        let started = ContinuousClock.now
        let daemon = try launch(
            binDir: binDir, work: work, name: "corpus",
            config: [
                "socket": .string(socket), "dataDir": .string("\(work)/data"), "logLevel": "warning",
                "searchables": ["corpus": .object(corpusIndex)],
            ])
        defer {
            if daemon.isRunning {
                daemon.terminate()
                daemon.waitUntilExit()
            }
        }
        try WriteBench.waitForDaemon(socket)
        let admin = try SocketConnection(path: socket, timeoutSeconds: 600)
        let documents = try WriteBench.documentCount(admin, "corpus")
        print(
            "fedsearch-bench --updates: \(documents) documents (\(corpus))\(discoveredAttributes ? ", no searchableAttributes" : "")")
        print(
            "bulk import, batches of 1,000, \(inFlight) in flight: \(imported) documents in \(String(format: "%.2f", importSeconds)) s = \(Int(Double(imported) / importSeconds)) documents/s"
        )
        print(
            "  RSS after the import: \(afterImport) MB (\(segmentsAfterImport) segments); after its merges (\(String(format: "%.1f", microseconds(since: mergeWait) / 1e6)) s more): \(mergedRSS) MB (\(mergedSegments) segments)"
        )
        let startSeconds = microseconds(since: started) / 1e6
        let startRSS = rssMB(daemon.processIdentifier)
        print("start with the first import and one build: \(String(format: "%.1f", startSeconds)) s, RSS \(startRSS) MB")

        // Documents to write: the corpus's first ones, changed (existing ids) or renamed (new ids).
        var samples: [JSONObject] = []
        for f in try admin.roundTrip([
            "id": "s", "query": "", "indices": ["corpus"], "params": ["hitsPerPage": 1000, "attributesToHighlight": []],
        ]) {
            if case .results(_, _, let r) = f {
                samples = r.hits.map { h in
                    var o = h.attributes
                    o["objectID"] = .string(h.objectID)
                    return o
                }
            }
        }
        guard !samples.isEmpty else { throw BenchError("the corpus index answered no documents") }
        var serial = 0
        func nextWrite() -> [UInt8] {
            serial += 1
            var d = samples[serial % samples.count]
            if serial % 2 == 0 { d["objectID"] = .string("new-\(serial)") }  // new ids and replaced ones alike
            d["price"] = .number(Double(serial % 1000))
            return encodedLine(["id": .string("w\(serial)"), "op": "addDocuments", "index": "corpus", "documents": [.object(d)]])
        }

        // Searches on the index as it was built at start (one segment), for comparison.
        let queries =
            (try? String(contentsOfFile: "\(corpusDir)/q_prefix.txt", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        let searches = queries.prefix(1000).enumerated().map { i, q in
            encodedLine([
                "id": .string("q\(i)"), "query": .string(q), "indices": ["corpus"],
                "params": ["hitsPerPage": 10, "facets": ["category"]],
            ])
        }
        let searcher = try SocketConnection(path: socket, timeoutSeconds: 60)
        for s in searches.prefix(200) { _ = try rawRoundTrip(searcher, s) }
        let whole = try searchFor(seconds: Double(seconds) / 2, searcher, searches)

        // 3: single upserts one at a time.
        let writer = try SocketConnection(path: socket, timeoutSeconds: 60)
        var upserts: [Double] = []
        for _ in 0..<20 { _ = try writeRoundTrip(writer, nextWrite()) }
        for _ in 0..<400 {
            let line = nextWrite()
            let t = ContinuousClock.now
            try writeRoundTrip(writer, line)
            upserts.append(microseconds(since: t))
        }
        let u = LatencySummary(samples: upserts, seconds: 1)
        print(
            "single-document upsert, answered once durable and searchable (400, one at a time): p50 \(String(format: "%.2f", u.p50 / 1000)) ms, p99 \(String(format: "%.2f", u.p99 / 1000)) ms"
        )
        try waitForMerges(admin, "corpus")

        // 4: searches, idle (after those upserts) and during a steady stream of writes.
        let idle = try searchFor(seconds: Double(seconds) / 2, searcher, searches)
        let idleSegments = try writeStats(admin, "corpus")["segments"]?.intValue ?? 0
        let stream = WriteStream()
        let interval = 1e6 / Double(rate)
        let lines = (0..<(rate * seconds + 10)).map { _ in nextWrite() }
        let thread = Thread {
            guard let connection = try? SocketConnection(path: socket, timeoutSeconds: 60) else { return stream.finish() }
            let start = ContinuousClock.now
            var n = 0
            while !stream.stop.load(ordering: .relaxed) && n < lines.count {
                let due = Double(n) * interval
                let now = microseconds(since: start)
                if now < due { usleep(UInt32(due - now)) }
                let t = ContinuousClock.now
                guard (try? writeRoundTrip(connection, lines[n])) != nil else { break }
                let took = microseconds(since: t)
                stream.latencies.withLock { $0.append(took) }
                n += 1
            }
            stream.finish()
        }
        thread.start()
        let busy = try searchFor(seconds: Double(seconds), searcher, searches)
        stream.stop.store(true, ordering: .relaxed)
        while !stream.finished.load(ordering: .acquiring) { usleep(10_000) }
        let latencies = stream.latencies.withLock { $0 }
        let done = (count: latencies.count, latencies: latencies)
        let w = LatencySummary(samples: done.latencies, seconds: Double(seconds))
        let st = try writeStats(admin, "corpus")
        print("searches (q_prefix, top 10, category facet, 1 client)   p50 µs   p99 µs   queries")
        print(
            "idle, as built at start (1 segment)                    \(fmt(whole.summary.p50).leftPad(6))   \(fmt(whole.summary.p99).leftPad(6))   \(whole.count)"
        )
        print(
            "idle, after the upserts (\(idleSegments) segments)                   \(fmt(idle.summary.p50).leftPad(6))   \(fmt(idle.summary.p99).leftPad(6))   \(idle.count)"
        )
        print(
            "while writing \(rate)/s (\(done.count) writes in \(seconds) s)        \(fmt(busy.summary.p50).leftPad(6))   \(fmt(busy.summary.p99).leftPad(6))   \(busy.count)"
        )
        print(
            "search p99 while writing / idle: \(String(format: "%.2f", busy.summary.p99 / max(idle.summary.p99, 0.001))) (against the index as built at start: \(String(format: "%.2f", busy.summary.p99 / max(whole.summary.p99, 0.001))))"
        )
        print(
            "the writes: \(Int(w.queriesPerSecond))/s achieved, answer p50 \(String(format: "%.2f", w.p50 / 1000)) ms, p99 \(String(format: "%.2f", w.p99 / 1000)) ms; \(st["segments"]?.intValue ?? 0) segments, \(st["merges"]?.intValue ?? 0) merges; RSS \(rssMB(daemon.processIdentifier)) MB"
        )
        let endRSS = rssMB(daemon.processIdentifier)

        // 5: a fold of the whole base: new documents, an eighth of the index, start one, and
        // searches run while it does; the daemon's RSS is sampled for its peak.
        let fold = try searchDuringBaseFold(
            socket: socket, admin: admin, searcher: searcher, searches: searches, documents: documents, samples: samples,
            pid: daemon.processIdentifier)
        try waitForMerges(admin, "corpus")
        let settledRSS = rssMB(daemon.processIdentifier)
        print(
            "during a fold of the whole base (\(fold.mergeDocuments) documents, \(String(format: "%.1f", fold.seconds)) s)   \(fmt(fold.summary.p50).leftPad(6))   \(fmt(fold.summary.p99).leftPad(6))   \(fold.count)"
        )
        print(
            "memory: \(endRSS) MB after the writes; peak \(fold.peakRSS) MB during the fold (\(fold.beforeRSS) MB before it); \(settledRSS) MB once settled"
        )
        // Against the targets of writes at scale (issue #42).
        func verdict(_ met: Bool) -> String { met ? "met" : "MISSED" }
        print("against the targets:")
        print(
            "  upsert visible, p50 <= 5 ms: \(String(format: "%.2f", u.p50 / 1000)) ms, \(verdict(u.p50 <= 5000)); p99 <= 50 ms: \(String(format: "%.2f", u.p99 / 1000)) ms, \(verdict(u.p99 <= 50000))"
        )
        let importRate = Double(imported) / importSeconds
        print("  bulk import >= 50,000 documents/s: \(Int(importRate)), \(verdict(importRate >= 50000))")
        let p50Ratio = busy.summary.p50 / max(whole.summary.p50, 0.001)
        let p99Ratio = busy.summary.p99 / max(whole.summary.p99, 0.001)
        print(
            "  search while writing \(rate)/s <= 1.3x the index as built: p50 \(String(format: "%.2f", p50Ratio))x, \(verdict(p50Ratio <= 1.3)); p99 \(String(format: "%.2f", p99Ratio))x, \(verdict(p99Ratio <= 1.3))"
        )
        let memoryRatio = Double(endRSS) / Double(max(startRSS, 1))
        print(
            "  memory while writing <= 1.5x the index as built: \(endRSS) MB against \(startRSS) MB = \(String(format: "%.2f", memoryRatio))x, \(verdict(memoryRatio <= 1.5))"
        )
        let foldRatio = fold.summary.p99 / max(idle.summary.p99, 0.001)
        print(
            "  search p99 during a fold of the base <= 1.5x idle: \(String(format: "%.2f", foldRatio))x, \(verdict(foldRatio <= 1.5)); peak memory during it \(String(format: "%.2f", Double(fold.peakRSS) / Double(max(fold.beforeRSS, 1))))x the memory before it"
        )
        print(
            "  first start to ready: \(String(format: "%.1f", startSeconds)) s (it imports the file into the store, then builds the index)"
        )

        // 5: a restart opens the saved segments (the base saved after the first start; the
        // writes since are built as it opens).
        let saved = try waitForSavedBase(admin, "corpus")
        daemon.terminate()
        daemon.waitUntilExit()
        let again = Process()
        again.executableURL = daemon.executableURL
        again.arguments = daemon.arguments
        let restarted = ContinuousClock.now
        try again.run()
        defer {
            again.terminate()
            again.waitUntilExit()
        }
        try WriteBench.waitForDaemon(socket)
        let restartSeconds = microseconds(since: restarted) / 1e6
        let opened = try writeStats(try SocketConnection(path: socket, timeoutSeconds: 60), "corpus")["segmentFiles"]?.objectValue ?? [:]
        print(
            "  restart to ready <= 2 s at a million documents: \(String(format: "%.2f", restartSeconds)) s, \(documents < 1_000_000 ? "(not a million documents)" : verdict(restartSeconds <= 2)) (\(opened["openedFromFiles"]?.intValue ?? 0) documents from \(saved) MB of saved segments, \(opened["openedBuilt"]?.intValue ?? 0) built; RSS \(rssMB(again.processIdentifier)) MB)"
        )
    }

    /// What searches met during a fold of the whole base.
    struct FoldRun {
        var summary: LatencySummary
        var count: Int
        var mergeDocuments: Int
        var seconds: Double
        var beforeRSS: Int
        var peakRSS: Int
    }

    /// Writes new documents (copies of `samples`) in batches of 1,000 until a merge of at
    /// least half the index runs (the base lane's fold), then searches until it ends,
    /// sampling the daemon's RSS.
    static func searchDuringBaseFold(
        socket: String, admin: SocketConnection, searcher: SocketConnection, searches: [[UInt8]], documents: Int,
        samples: [JSONObject], pid: Int32
    ) throws -> FoldRun {
        let beforeRSS = rssMB(pid)
        let writer = try SocketConnection(path: socket, timeoutSeconds: 120)
        func folding() throws -> Int {
            let n = try writeStats(admin, "corpus")["mergingDocuments"]?.intValue ?? 0
            return n >= documents / 2 ? n : 0
        }
        var batch = 0
        var mergeDocuments = 0
        let deadline = ContinuousClock.now + .seconds(300)
        while mergeDocuments == 0 {
            guard ContinuousClock.now < deadline else { throw BenchError("no fold of the base began within 300 s") }
            let docs = (0..<1000).map { i -> JSONValue in
                var d = samples[i % samples.count]
                d["objectID"] = .string("fold-\(batch)-\(i)")
                return .object(d)
            }
            try writeRoundTrip(
                writer, encodedLine(["id": .string("f\(batch)"), "op": "addDocuments", "index": "corpus", "documents": .array(docs)]))
            batch += 1
            mergeDocuments = try folding()
        }
        var latencies: [Double] = []
        var peak = rssMB(pid)
        let began = ContinuousClock.now
        var i = 0
        while try folding() > 0 {
            for _ in 0..<20 {
                let t = ContinuousClock.now
                guard try rawRoundTrip(searcher, searches[i % searches.count]) else { throw BenchError("the daemon closed the connection") }
                latencies.append(microseconds(since: t))
                i += 1
            }
            peak = max(peak, rssMB(pid))
        }
        let seconds = microseconds(since: began) / 1e6
        return FoldRun(
            summary: LatencySummary(samples: latencies, seconds: seconds), count: latencies.count, mergeDocuments: mergeDocuments,
            seconds: seconds, beforeRSS: beforeRSS, peakRSS: peak)
    }

    /// Starts the daemon on `config`, written to `work/<name>.json`.
    static func launch(binDir: String, work: String, name: String, config: JSONObject) throws -> Process {
        let file = "\(work)/\(name).json"
        try JSONWriter.string(.object(config)).write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "\(binDir)/fedsearchd")
        daemon.arguments = ["--config", file]
        try daemon.run()
        return daemon
    }

    /// Waits until the index's base segment is saved (see `stats.writes.<index>.segmentFiles`);
    /// returns the saved files' size in MB.
    static func waitForSavedBase(_ admin: SocketConnection, _ index: String) throws -> Int {
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline {
            if let files = try writeStats(admin, index)["segmentFiles"]?.objectValue, (files["files"]?.intValue ?? 0) > 0,
                try writeStats(admin, index)["merging"] == .bool(false)
            {
                return (files["bytes"]?.intValue ?? 0) >> 20
            }
            usleep(100_000)
        }
        throw BenchError("\(index): its base segment was not saved within 300 s")
    }

    /// Sends a write and reads its answer; throws unless it was written.
    static func writeRoundTrip(_ c: SocketConnection, _ line: [UInt8]) throws {
        try c.sendRaw(line)
        guard let f = try c.readFrame(), f.type == "written" else { throw BenchError("a write was not acknowledged") }
    }

    static func searchFor(seconds: Double, _ c: SocketConnection, _ requests: [[UInt8]]) throws -> (summary: LatencySummary, count: Int) {
        var samples: [Double] = []
        let start = ContinuousClock.now
        var i = 0
        while microseconds(since: start) < seconds * 1e6 {
            let t = ContinuousClock.now
            guard try rawRoundTrip(c, requests[i % requests.count]) else { throw BenchError("the daemon closed the connection") }
            samples.append(microseconds(since: t))
            i += 1
        }
        return (LatencySummary(samples: samples, seconds: seconds), samples.count)
    }

    static func writeStats(_ c: SocketConnection, _ index: String) throws -> JSONObject {
        guard case .info(_, "stats", let p)? = try c.roundTrip(["id": "st", "op": "stats"]).first else { return [:] }
        return p["writes"]?.objectValue?[index]?.objectValue ?? [:]
    }

    /// Waits until the index has no merge running and none queued.
    static func waitForMerges(_ c: SocketConnection, _ index: String) throws {
        var quiet = 0
        while quiet < 3 {
            quiet = try writeStats(c, index)["merging"] == .bool(false) ? quiet + 1 : 0
            usleep(100_000)
        }
    }

    static func rssMB(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) / 1024
        }
        return 0
    }
}

/// What the writing thread of a steady stream shares with the measuring one.
final class WriteStream: Sendable {
    let stop = Atomic<Bool>(false)
    let finished = Atomic<Bool>(false)
    /// Each write's time to its answer, µs.
    let latencies = Mutex<[Double]>([])

    func finish() { finished.store(true, ordering: .releasing) }
}
