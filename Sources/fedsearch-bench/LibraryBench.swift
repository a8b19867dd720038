#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch

/// The InstantSearch library's own cost per keystroke: the same queries, over both indices of
/// the config, sent by a ``FederatedSearcher`` feeding a Hits and a Stats interactor per
/// index and the merged list (decoding every frame into typed results, dispatching to the
/// interactors on the main actor), against the raw round trip of the same request lines
/// (sent and read on a blocking socket, frames not decoded). Both wait for each answer.
@MainActor
enum LibraryBench {
    struct Figures {
        let library: LatencySummary
        let raw: LatencySummary
        /// This process's CPU per keystroke (the client's own work), in microseconds.
        let libraryCPU: Double
        let rawCPU: Double
        /// Decoding one answer's frames in process, in microseconds, and the answer's size.
        let decodeMicros: Double
        let bytesPerAnswer: Int
        /// This process's CPU per request on ``DaemonConnection`` alone (no searcher).
        let connectionCPU: Double
    }

    /// The process's CPU time so far, in microseconds (user and system).
    static func processCPU() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec)
    }

    /// One run of each: `texts` typed into the library, then sent raw.
    static func run(socket: String, indices: [String], texts: [String], params: SearchParameters) async throws -> Figures {
        let connection = DaemonConnection(path: socket)
        defer { connection.close() }
        let searcher = FederatedSearcher(transport: connection, indices: indices.map { SearcherId(index: $0) })
        searcher.parameters = params
        for s in searcher.sources { s.parameters = params }
        var keep: [AnyObject] = []
        for s in searcher.sources {
            let hits = HitsInteractor()
            hits.connectSearcher(s)
            let stats = StatsInteractor()
            stats.connectSearcher(s)
            keep += [hits, stats]
        }
        /// The request the raw and connection-only sets send for `text`, as the searcher would.
        func request(_ text: String, session: String?, seq: Int?) -> SearchRequest {
            SearchRequest(
                query: text, targets: searcher.sources.map { SearchTarget(index: $0.id.index, params: params.requestJSON()) },
                parameters: params, session: session, seq: seq)
        }
        let merged = MergedHitsInteractor()
        merged.connectSearcher(searcher)

        // The library: each keystroke's wall time until its status is delivered.
        var samples: [Double] = []
        let cpu0 = processCPU()
        let start = ContinuousClock.now
        for text in texts {
            let t = ContinuousClock.now
            searcher.query = text
            guard case .finished = await searcher.searchAndWait() else { throw BenchFailure(description: "'\(text)' failed") }
            samples.append(microseconds(since: t))
        }
        let library = LatencySummary(samples: samples, seconds: microseconds(since: start) / 1e6)
        let libraryCPU = (processCPU() - cpu0) / Double(texts.count)
        _ = keep

        // The connection alone: the same requests on DaemonConnection, frames decoded, no
        // searcher or interactor (what the hand-offs and decoding cost without the library above).
        let plain = DaemonConnection(path: socket)
        defer { plain.close() }
        let cpu2 = processCPU()
        for (i, text) in texts.enumerated() {
            _ = try await plain.roundTrip(.search(request(text, session: "plain", seq: i + 1)))
        }
        let connectionCPU = (processCPU() - cpu2) / Double(texts.count)

        // Raw: the same request lines (session and seq included), read without decoding.
        let raw = try SocketConnection(path: socket, timeoutSeconds: 30)
        let lines = texts.enumerated().map { i, text in
            Request(id: String(i), operation: .search(request(text, session: "raw", seq: i + 1))).line()
        }
        samples = []
        let cpu1 = processCPU()
        let rawStart = ContinuousClock.now
        for line in lines {
            let t = ContinuousClock.now
            guard try rawRoundTrip(raw, line) else { throw BenchFailure(description: "raw round trip: the daemon closed") }
            samples.append(microseconds(since: t))
        }
        let rawSummary = LatencySummary(samples: samples, seconds: microseconds(since: rawStart) / 1e6)
        let rawCPU = (processCPU() - cpu1) / Double(texts.count)

        // Decoding alone: every frame line of each answer, read whole once, then decoded in
        // process (the share of the library's cost that is JSON).
        var captured: [[[UInt8]]] = []
        for text in texts {
            try raw.sendRaw(Request(id: "c", operation: .search(request(text, session: nil, seq: nil))).line())
            var frames: [[UInt8]] = []
            while let l = try raw.readLine() {
                frames.append(l)
                if l.count < 4096, contains(l.prefix(64), Array(#""type":"done""#.utf8)) { break }
            }
            captured.append(frames)
        }
        let decodeStart = ContinuousClock.now
        var decoded = 0
        for frames in captured {
            for l in frames { if (try? FrameDecoder.decode(l)) != nil { decoded += 1 } }
        }
        let decodeMicros = microseconds(since: decodeStart) / Double(texts.count)
        let bytes = captured.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } / max(1, texts.count)
        return Figures(library: library, raw: rawSummary, libraryCPU: libraryCPU, rawCPU: rawCPU, decodeMicros: decodeMicros,
                       bytesPerAnswer: bytes, connectionCPU: connectionCPU)
    }
}
