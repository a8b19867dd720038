import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// Runs one federated search and emits its frames: one `results` or `error` frame per source
/// in completion order, then `merged`, then `done`. No socket here: frames go to `send`.
enum SearchExecutor {
    /// The request's sources, adjusted for its merge, and the merge plan: everything checked
    /// before any work starts.
    static func plan(
        _ request: SearchRequest, in catalog: Catalog, peer: PeerIdentity?
    ) throws(SearchError) -> (sources: [FederatedSource], plan: MergePlan) {
        var sources = try Self.sources(for: request, in: catalog, peer: peer)
        let plan = try MergePlan.decode(request)
        try plan.apply(to: &sources)
        return (sources, plan)
    }

    /// Resolves the request's sources and their parameters against the catalog.
    /// Runs before any work starts, so a bad request fails whole with one error frame.
    static func sources(
        for request: SearchRequest, in catalog: Catalog, peer: PeerIdentity?
    ) throws(SearchError) -> [FederatedSource] {
        // Without `indices`, every index the peer may search.
        let targets = request.targets
            ?? catalog.entries.filter { $0.access.maySearch(peer) }.map { SearchTarget(index: $0.id.index) }
        guard !targets.isEmpty else { throw SearchError(.forbidden, "indices: this peer may search no index") }
        let names = Set(targets.map(\.name))
        for name in request.perIndex.keys.sorted() where !names.contains(name) {
            throw SearchError(.invalidField, "perIndex.\(name): '\(name)' is not one of the searched indices")
        }
        var sources: [FederatedSource] = []
        // One memo for the request's sources: they share what depends on the query alone.
        let memo = QueryMemo()
        for target in targets {
            guard let entry = catalog.entry(target.index) else {
                let path = request.targets == nil ? "indices" : target.path
                throw SearchError(.unknownIndex, "\(path): no index named '\(target.index)'")
            }
            guard entry.access.maySearch(peer) else {
                throw SearchError(.forbidden, "\(target.path): this peer (uid \(peer.map { String($0.uid) } ?? "?")) may not search '\(target.index)'")
            }
            let params = try request.parameters(for: target)
            let ms = target.timeoutMs ?? request.timeoutMs
            let timeout = ms.map { Duration.milliseconds($0) } ?? entry.defaultTimeout
            sources.append(FederatedSource(
                name: target.name, searchable: entry.searchable, query: SearchQuery(text: request.query, parameters: params, memo: memo),
                timeout: timeout, weight: target.weight, index: target.index))
        }
        return sources
    }

    /// Fans the query out, sends every frame of the reply but the last, and returns the
    /// last (`done`), so the caller can hand it over together with the request's end.
    ///
    /// `send` gets each frame's line, and whether other frames follow at once (the merged
    /// frame, which `done` follows) or only when more sources answer (a source's frame).
    static func run(
        id: String?, sources: [FederatedSource], plan: MergePlan, stats: DaemonStats, health: SourceHealth,
        inline: FanOut.InlineMode = .sequential, spreadExecutor: (any TaskExecutor)? = nil,
        send: @escaping @Sendable (_ line: [UInt8], _ moreSoon: Bool) -> Void
    ) async -> Frame {
        let clock = ContinuousClock()
        let start = clock.now
        // Sources whose breaker is open are not asked.
        var askedSources: [FederatedSource] = []
        var askedSourcePositions: [Int] = []
        var skipped: [Int: Double] = [:]
        for (position, source) in sources.enumerated() {
            switch health.admit(source.index, now: start) {
            case .allow, .probe:
                askedSources.append(source)
                askedSourcePositions.append(position)
            case .skip(let until):
                let c = (until - start).components
                skipped[position] = max(0, Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
            }
        }
        // Each source's hits, encoded once for its results frame and reused by the merge.
        let encoded = EncodedHits(count: sources.count)
        let asked = askedSources
        let askedPositions = askedSourcePositions
        // A spread keeps the slowest asked source on this task (positions shift when a breaker
        // skips a source, so the caller's choice is by index name).
        var mode = inline
        if case .spread = inline {
            let slowest = asked.indices.max { stats.meanLatency(asked[$0].name) < stats.meanLatency(asked[$1].name) }
            mode = slowest.map { .spread(keep: $0) } ?? .sequential
        }
        // Each source's results frame is encoded on the thread that ran the source (in a spread,
        // the other sources' frames are not encoded one after another on this task). Not when
        // every source runs on this task: there it would only add a hand-over.
        let runsElsewhere = mode != .sequential || asked.contains { $0.inline == nil }
        let frames = runsElsewhere ? ResultFrames(count: asked.count) : nil
        var prepare: (@Sendable (SourceCompletion) -> Void)? = nil
        if let frames {
            prepare = { completion in
                guard case .results(let results) = completion.outcome else { return }
                frames.set(completion.position, Self.resultsFrame(id: id, completion.name, results))
            }
        }
        let completions = await FanOut.run(asked, inline: mode, spreadExecutor: spreadExecutor, prepare: prepare) { completion in
            let source = asked[completion.position]
            // A cancelled source (the request was cancelled or superseded) may not have run at
            // all: its near-zero time is no latency sample.
            if case .cancelled = completion.outcome {} else {
                stats.recordSource(completion.name, ms: completion.milliseconds)
            }
            health.record(source.index, outcome: completion.outcome, now: clock.now)
            switch completion.outcome {
            case .results(let results):
                let (line, hits) = frames?.take(completion.position) ?? Self.resultsFrame(id: id, completion.name, results)
                encoded.set(askedPositions[completion.position], hits)
                send(line, false)
            case .failed(let error):
                send(Frame.error(id: id, index: completion.name, error: error).line(), false)
            case .timedOut:
                let ms = source.timeout.components
                let limit = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
                send(Frame.error(id: id, index: completion.name, error: SearchError(
                    .timeout, "\(completion.name): no answer within \(limit) ms; the source was cancelled")).line(), false)
            case .cancelled:
                break
            }
        }
        let cancelled = Task.isCancelled
        var outcomes: [SourceOutcome?] = Array(repeating: nil, count: sources.count)
        var reports: [SourceReport?] = Array(repeating: nil, count: sources.count)
        for c in completions {
            let position = askedPositions[c.position]
            outcomes[position] = c.outcome
            reports[position] = report(c)
        }
        for (position, ms) in skipped {
            reports[position] = SourceReport(status: .skipped, ms: 0, errorCode: .suspended, suspendedForMs: ms)
        }
        let named = sources.indices.map { (name: sources[$0].name, report: reports[$0]!) }
        let okCount = named.filter { $0.report.status == .ok }.count
        let status: DoneStatus =
            cancelled ? .cancelled : okCount == named.count ? .ok : okCount == 0 ? .failed : .partial
        if !cancelled, plan.options.strategy != .grouped {
            send(mergedFrame(id: id, sources: sources, outcomes: outcomes, encoded: encoded.all(), plan: plan), true)
        }
        stats.recordRequest(failed: status != .ok)
        let elapsed = (clock.now - start).components
        let ms = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        if Log.enabled(.debug) {
            Log.debug("request done: \(status.rawValue) in \(ms) ms", [
                ("REQUEST_ID", id ?? "-"), ("STATUS", status.rawValue),
                ("SOURCES", named.map { "\($0.name):\($0.report.status.rawValue)" }.joined(separator: ",")),
            ])
        }
        return .done(id: id, status: status, sources: named, ms: ms)
    }

    /// A source's results frame (line and encoded hits), named after the source when the
    /// backend left `index` empty.
    static func resultsFrame(id: String?, _ name: String, _ given: SearchResults) -> (line: [UInt8], hits: [FrameWriter.EncodedHit]) {
        var results = given
        if results.index.isEmpty { results.index = name }
        return FrameWriter.results(id: id, index: name, results: results)
    }

    static func report(_ c: SourceCompletion) -> SourceReport {
        switch c.outcome {
        case .results(let r): return SourceReport(status: .ok, ms: c.milliseconds, nbHits: r.nbHits)
        case .failed(let e): return SourceReport(status: .error, ms: c.milliseconds, errorCode: e.code)
        case .timedOut: return SourceReport(status: .timeout, ms: c.milliseconds, errorCode: .timeout)
        case .cancelled: return SourceReport(status: .cancelled, ms: c.milliseconds, errorCode: .cancelled)
        }
    }

    /// The merged frame: the page of the merged hit list, and the merged facets if asked.
    static func mergedFrame(
        id: String?, sources: [FederatedSource], outcomes: [SourceOutcome?], encoded: [[FrameWriter.EncodedHit]],
        plan: MergePlan
    ) -> [UInt8] {
        var lists: [SourceHits] = []
        var nbHits = 0
        var facetSources: [FacetSource] = []
        for (position, source) in sources.enumerated() {
            var results: SearchResults?
            if case .results(let r)? = outcomes[position] {
                results = r
                nbHits += r.nbHits
                lists.append(SourceHits(name: source.name, position: position, weight: source.weight, hits: r.hits))
            }
            facetSources.append(FacetSource(name: source.name, results: results))
        }
        let entries = FederatedMerge.merge(lists, options: plan.options)
        let hits = entries.map {
            FrameWriter.MergedHitBytes(
                index: $0.name, rank: $0.rank, weightedScore: $0.weightedScore, hit: encoded[$0.sourcePosition][$0.rank])
        }
        var extra = JSONObject()
        if plan.explicit {
            extra.appendUnchecked("strategy", .string(plan.options.strategy.rawValue))
            extra.appendUnchecked("offset", .number(Double(plan.options.offset)))
            extra.appendUnchecked("limit", .number(Double(plan.options.limit)))
        }
        if let facetOptions = plan.facets {
            for e in FacetMerge.merge(facetSources, options: facetOptions).json() { extra.appendUnchecked(e.key, e.value) }
        }
        return FrameWriter.merged(id: id, hits: hits, nbHits: nbHits, extra: extra)
    }
}

/// Each source's encoded results frame, from the thread that ran it to the calling task.
private final class ResultFrames: Sendable {
    private let store: Mutex<[(line: [UInt8], hits: [FrameWriter.EncodedHit])?]>
    init(count: Int) { store = Mutex(Array(repeating: nil, count: count)) }
    func set(_ position: Int, _ frame: (line: [UInt8], hits: [FrameWriter.EncodedHit])) {
        store.withLock { $0[position] = frame }
    }
    /// The frame of the source at `position` (once), if it was encoded.
    func take(_ position: Int) -> (line: [UInt8], hits: [FrameWriter.EncodedHit])? {
        store.withLock { frames in
            defer { frames[position] = nil }
            return frames[position]
        }
    }
}

/// Hits encoded by the results frames, kept for the merged frame.
private final class EncodedHits: Sendable {
    private let store: Mutex<[[FrameWriter.EncodedHit]]>
    init(count: Int) { store = Mutex(Array(repeating: [], count: count)) }
    func set(_ position: Int, _ hits: [FrameWriter.EncodedHit]) { store.withLock { $0[position] = hits } }
    func all() -> [[FrameWriter.EncodedHit]] { store.withLock { $0 } }
}
