#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch
import SocketTestClient

/// The InstantSearch library's own cost per keystroke: the same queries, over both indices of
/// the config, sent by a ``FederatedSearcher`` feeding a Hits and a Stats interactor per
/// index and the merged list (decoding every frame into typed results, dispatching to the
/// interactors on the main actor), against the raw round trip of the same request lines
/// (sent and read on a blocking socket, frames not decoded). Both wait for each answer.
///
/// Latency is measured with each query sent by both sides in turn (the order alternating), so
/// the shared machine's noise falls on both alike, and with a pause after each answer: `gap`
/// zero sends the next keystroke at once (a client typing faster than any person, where the
/// daemon's idle polling catches it), a pause of milliseconds is how keystrokes really come
/// (the daemon and both clients asleep when each one arrives). CPU per keystroke is measured
/// per side alone, back to back.
@MainActor
enum LibraryBench {
    struct Latency {
        let library: LatencySummary
        let raw: LatencySummary
    }

    struct CPU {
        /// This process's CPU per keystroke (the client's own work), in microseconds.
        let library: Double
        let raw: Double
        /// This process's CPU per request on ``DaemonConnection`` alone (no searcher).
        let connection: Double
        /// Decoding one answer's frames in process, in microseconds, and the answer's size.
        let decodeMicros: Double
        let bytesPerAnswer: Int
    }

    /// The process's CPU time so far, in microseconds (user and system).
    static func processCPU() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec)
    }

    /// A federated searcher over `indices` with the interactors a dashboard connects, and the
    /// raw request for a text as that searcher would send it.
    @MainActor private final class Library {
        let connection: DaemonConnection
        let searcher: FederatedSearcher
        let params: SearchParameters
        private var interactors: [AnyObject] = []
        /// When the last search's status reached the searcher's subscribers (after every
        /// interactor had its results: they subscribed first).
        private var statusDelivered: ContinuousClock.Instant?

        init(socket: String, indices: [String], params: SearchParameters) {
            connection = DaemonConnection(path: socket)
            searcher = FederatedSearcher(transport: connection, indices: indices.map { SearcherId(index: $0) })
            self.params = params
            searcher.parameters = params
            for s in searcher.sources {
                s.parameters = params
                let hits = HitsInteractor()
                hits.connectSearcher(s)
                let stats = StatsInteractor()
                stats.connectSearcher(s)
                interactors += [hits, stats]
            }
            let merged = MergedHitsInteractor()
            merged.connectSearcher(searcher)
            interactors.append(merged)
            searcher.onStatus.subscribe(with: self) { me, _ in me.statusDelivered = .now }
        }

        deinit { connection.close() }

        /// Types `text` and waits until its status is delivered; the wall time in µs until the
        /// status reached the subscribers (what a UI waits for; `searchAndWait` returns a
        /// scheduling hop later).
        func keystroke(_ text: String) async throws -> Double {
            let t = ContinuousClock.now
            statusDelivered = nil
            searcher.query = text
            guard case .finished = await searcher.searchAndWait(), let end = statusDelivered else {
                throw BenchFailure(description: "'\(text)' failed")
            }
            return microseconds(from: t, to: end)
        }

        func request(_ text: String, session: String?, seq: Int?) -> SearchRequest {
            SearchRequest(
                query: text, targets: searcher.sources.map { SearchTarget(index: $0.id.index, params: params.requestJSON()) },
                parameters: params, session: session, seq: seq)
        }
    }

    /// Each text typed into the library and sent raw, in turn, pausing `gap` after each answer.
    static func latency(socket: String, indices: [String], texts: [String], params: SearchParameters, gap: Duration) async throws -> Latency
    {
        let library = Library(socket: socket, indices: indices, params: params)
        let raw = try SocketConnection(path: socket, timeoutSeconds: 30)
        var librarySamples: [Double] = []
        var rawSamples: [Double] = []
        let start = ContinuousClock.now
        for (i, text) in texts.enumerated() {
            let line = Request(id: String(i), operation: .search(library.request(text, session: "raw", seq: i + 1))).line()
            for side in i % 2 == 0 ? [0, 1] : [1, 0] {
                if side == 0 {
                    librarySamples.append(try await library.keystroke(text))
                } else {
                    let t = ContinuousClock.now
                    guard try rawRoundTrip(raw, line) else { throw BenchFailure(description: "raw round trip: the daemon closed") }
                    rawSamples.append(microseconds(since: t))
                }
                if gap > .zero { try await Task.sleep(for: gap) }
            }
        }
        let seconds = microseconds(since: start) / 1e6
        return Latency(
            library: LatencySummary(samples: librarySamples, seconds: seconds),
            raw: LatencySummary(samples: rawSamples, seconds: seconds))
    }

    /// Each side's CPU per keystroke alone, back to back, and decoding alone.
    static func cpu(socket: String, indices: [String], texts: [String], params: SearchParameters) async throws -> CPU {
        let library = Library(socket: socket, indices: indices, params: params)
        let cpu0 = processCPU()
        for text in texts { _ = try await library.keystroke(text) }
        let libraryCPU = (processCPU() - cpu0) / Double(texts.count)

        // The connection alone: the same requests on DaemonConnection, frames decoded and
        // handed to the main actor as the searchers have them, no searcher or interactor.
        let plain = DaemonConnection(path: socket)
        defer { plain.close() }
        let cpu2 = processCPU()
        for (i, text) in texts.enumerated() {
            let operation = Request.Operation.search(library.request(text, session: "plain", seq: i + 1))
            let ended: Bool = try await withCheckedThrowingContinuation { k in
                do {
                    _ = try plain.send(operation) { event in
                        switch event {
                        case .frames: break
                        case .ended: k.resume(returning: true)
                        case .failed: k.resume(returning: false)
                        }
                    }
                } catch { k.resume(throwing: error) }
            }
            guard ended else { throw BenchFailure(description: "the connection broke") }
        }
        let connectionCPU = (processCPU() - cpu2) / Double(texts.count)

        // Raw: the same request lines (session and seq included), read without decoding.
        let raw = try SocketConnection(path: socket, timeoutSeconds: 30)
        let lines = texts.enumerated().map { i, text in
            Request(id: String(i), operation: .search(library.request(text, session: "raw", seq: i + 1))).line()
        }
        let cpu1 = processCPU()
        for line in lines {
            guard try rawRoundTrip(raw, line) else { throw BenchFailure(description: "raw round trip: the daemon closed") }
        }
        let rawCPU = (processCPU() - cpu1) / Double(texts.count)

        // Decoding alone: every frame line of each answer, read whole once, then decoded in
        // process as the connection decodes them (the share of the library's cost that is JSON).
        var captured: [[[UInt8]]] = []
        for text in texts {
            try raw.sendRaw(Request(id: "c", operation: .search(library.request(text, session: nil, seq: nil))).line())
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
            var decoder = AnswerDecoder()  // as the connection decodes an answer
            for l in frames { if (try? decoder.decode(l)) != nil { decoded += 1 } }
        }
        let decodeMicros = microseconds(since: decodeStart) / Double(texts.count)
        let bytes = captured.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } / max(1, texts.count)
        return CPU(library: libraryCPU, raw: rawCPU, connection: connectionCPU, decodeMicros: decodeMicros, bytesPerAnswer: bytes)
    }
}
