import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// Runs one federated search and emits its frames: one `results` or `error` frame per source
/// in completion order, then `merged`, then `done`. No socket here: frames go to `send`.
enum SearchExecutor {
    /// Resolves the request's sources and their parameters against the catalog.
    /// Runs before any work starts, so a bad request fails whole with one error frame.
    static func sources(for request: SearchRequest, in catalog: Catalog) throws(SearchError) -> [FederatedSource] {
        let targets = request.targets ?? catalog.entries.map { SearchTarget(index: $0.id.index) }
        let names = Set(targets.map(\.name))
        for name in request.perIndex.keys.sorted() where !names.contains(name) {
            throw SearchError(.invalidField, "perIndex.\(name): '\(name)' is not one of the searched indices")
        }
        var sources: [FederatedSource] = []
        for target in targets {
            guard let entry = catalog.entry(target.index) else {
                let path = request.targets == nil ? "indices" : target.path
                throw SearchError(.unknownIndex, "\(path): no index named '\(target.index)'")
            }
            let params = try request.parameters(for: target)
            let ms = target.timeoutMs ?? request.timeoutMs
            let timeout = ms.map { Duration.milliseconds($0) } ?? entry.defaultTimeout
            sources.append(FederatedSource(
                name: target.name, searchable: entry.searchable, query: SearchQuery(text: request.query, parameters: params),
                timeout: timeout, weight: target.weight))
        }
        return sources
    }

    /// Fans the query out, sends every frame of the reply but the last, and returns the
    /// last (`done`), so the caller can hand it over together with the request's end.
    static func run(
        id: String?, sources: [FederatedSource], mergedLimit: Int, stats: DaemonStats, inlineInParallel: Bool = false,
        send: @escaping @Sendable ([UInt8]) -> Void
    ) async -> Frame {
        let clock = ContinuousClock()
        let start = clock.now
        // Each source's hits, encoded once for its results frame and reused by the merge.
        let encoded = EncodedHits(count: sources.count)
        let completions = await FanOut.run(sources, inlineInParallel: inlineInParallel) { completion in
            stats.recordSource(completion.name, ms: completion.milliseconds)
            switch completion.outcome {
            case .results(var results):
                if results.index.isEmpty { results.index = completion.name }
                let (line, hits) = FrameWriter.results(id: id, index: completion.name, results: results)
                encoded.set(completion.position, hits)
                send(line)
            case .failed(let error):
                send(Frame.error(id: id, index: completion.name, error: error).line())
            case .timedOut:
                let ms = sources[completion.position].timeout.components
                let limit = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
                send(Frame.error(id: id, index: completion.name, error: SearchError(
                    .timeout, "\(completion.name): no answer within \(limit) ms; the source was cancelled")).line())
            case .cancelled:
                break
            }
        }
        let cancelled = Task.isCancelled
        var reports: [(name: String, report: SourceReport)] = []
        var lists: [[RankedHit]] = []
        var nbHits = 0
        for c in completions {
            switch c.outcome {
            case .results(let r):
                reports.append((c.name, SourceReport(status: .ok, ms: c.milliseconds, nbHits: r.nbHits)))
                nbHits += r.nbHits
                lists.append(r.hits.enumerated().map {
                    RankedHit(sourcePosition: c.position, rank: $0.offset, score: $0.element.rankingScore, hit: $0.element)
                })
            case .failed(let e):
                reports.append((c.name, SourceReport(status: .error, ms: c.milliseconds, errorCode: e.code)))
            case .timedOut:
                reports.append((c.name, SourceReport(status: .timeout, ms: c.milliseconds, errorCode: .timeout)))
            case .cancelled:
                reports.append((c.name, SourceReport(status: .cancelled, ms: c.milliseconds, errorCode: .cancelled)))
            }
        }
        let okCount = reports.filter { $0.report.status == .ok }.count
        let status: DoneStatus =
            cancelled ? .cancelled : okCount == reports.count ? .ok : okCount == 0 ? .failed : .partial
        if !cancelled {
            let bySource = encoded.all()
            let merged = ScoreMerge.merge(lists, limit: mergedLimit).map {
                (index: sources[$0.sourcePosition].name, hit: bySource[$0.sourcePosition][$0.rank])
            }
            send(FrameWriter.merged(id: id, hits: merged, nbHits: nbHits))
        }
        stats.recordRequest(failed: status != .ok)
        let elapsed = (clock.now - start).components
        let ms = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        if Log.enabled(.debug) {
            Log.debug("request done: \(status.rawValue) in \(ms) ms", [
                ("REQUEST_ID", id ?? "-"), ("STATUS", status.rawValue),
                ("SOURCES", reports.map { "\($0.name):\($0.report.status.rawValue)" }.joined(separator: ",")),
            ])
        }
        return .done(id: id, status: status, sources: reports, ms: ms)
    }
}

/// Hits encoded by the results frames, kept for the merged frame.
private final class EncodedHits: Sendable {
    private let store: Mutex<[[FrameWriter.EncodedHit]]>
    init(count: Int) { store = Mutex(Array(repeating: [], count: count)) }
    func set(_ position: Int, _ hits: [FrameWriter.EncodedHit]) { store.withLock { $0[position] = hits } }
    func all() -> [[FrameWriter.EncodedHit]] { store.withLock { $0 } }
}
