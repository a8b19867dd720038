import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// Runs one federated search and emits its frames: one `results` or `error` frame per source
/// in completion order, then `merged`, then `done`. No socket here: frames go to `send`.
package enum SearchExecutor {
    /// The request's sources, adjusted for its merge, and the merge plan: everything checked
    /// before any work starts.
    /// `answerByteLimit`: `limits.maxAnswerBytes`, which bounds each source's page as it is
    /// built (see ``SearchQuery/answerByteLimit``).
    package static func plan(
        _ request: SearchRequest, in catalog: Catalog, peer: PeerIdentity?, answerByteLimit: Int? = nil
    ) throws(SearchError) -> (sources: [FederatedSource], plan: MergePlan) {
        var sources = try Self.sources(for: request, in: catalog, peer: peer)
        for i in sources.indices { sources[i].query.answerByteLimit = answerByteLimit }
        let plan = try MergePlan.decode(request)
        try plan.apply(to: &sources)
        return (sources, plan)
    }

    /// Resolves the request's sources and their parameters against the catalog.
    /// Runs before any work starts, so a bad request fails whole with one error frame.
    package static func sources(
        for request: SearchRequest, in catalog: Catalog, peer: PeerIdentity?
    ) throws(SearchError) -> [FederatedSource] {
        // Without `indices`, every index the peer may search.
        let targets =
            request.targets
            ?? catalog.entries.filter { $0.access.maySearch(peer) }.map { SearchTarget(index: $0.id.index) }
        guard !targets.isEmpty else { throw SearchError(.forbidden, "indices: this peer may search no index") }
        let names = Set(targets.map(\.name))
        for name in request.perIndex.keys.sorted() where !names.contains(name) {
            throw SearchError(.invalidField, "perIndex.\(name): '\(name)' is not one of the searched indices")
        }
        var sources: [FederatedSource] = []
        for target in targets {
            guard let entry = catalog.entry(target.index, visibleTo: peer) else {
                let path = request.targets == nil ? "indices" : target.path
                throw catalog.unknownIndex(target.index, path: path, peer: peer)
            }
            guard entry.access.maySearch(peer) else {
                throw SearchError(
                    .forbidden, "\(target.path): this peer (uid \(peer.map { String($0.uid) } ?? "?")) may not search '\(target.index)'")
            }
            let params = try request.parameters(for: target, defaults: entry.searchable.queryDefaults)
            let ms = target.timeoutMs ?? request.timeoutMs
            let timeout = ms.map { Duration.milliseconds($0) } ?? entry.defaultTimeout
            var source = FederatedSource(
                name: target.name, searchable: entry.searchable, query: SearchQuery(text: request.query, parameters: params),
                timeout: timeout, weight: target.weight, index: target.index)
            source.timeoutIsTheIndexs = timeout >= entry.defaultTimeout
            sources.append(source)
        }
        return sources
    }

    /// Fans the query out, sends every frame of the reply but the last, and returns the
    /// last (`done`), so the caller can hand it over together with the request's end.
    ///
    /// `send` gets each frame's line, and whether other frames follow at once (the merged
    /// frame, which `done` follows) or only when more sources answer (a source's frame).
    package static func run(
        id: String?, sources: [FederatedSource], plan: MergePlan, stats: DaemonStats, health: SourceHealth,
        probes: HeldProbes = HeldProbes(), inline: FanOut.InlineMode = .sequential, executor: (any TaskExecutor)? = nil,
        send: @escaping @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void
    ) async -> Frame {
        let run = SearchRun(
            id: id, sources: sources, plan: plan, stats: stats, health: health, probes: probes, inline: inline, send: send)
        let completions = await FanOut.run(
            run.asked, inline: run.mode, executor: executor, prepare: run.prepare, onCompletion: run.completed)
        return run.finish(completions, cancelled: Task.isCancelled)
    }

    /// ``run(id:sources:plan:stats:health:probes:inline:send:)`` for sources that all
    /// answer from memory, run one after another on the calling thread before it returns, with
    /// no task: for the loop thread, where nothing can cancel a search while it runs (a
    /// `cancel`, a newer keystroke or the client's going away is read only after it).
    package static func runNow(
        id: String?, sources: [FederatedSource], plan: MergePlan, stats: DaemonStats, health: SourceHealth,
        send: @escaping @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void
    ) -> Frame {
        let run = SearchRun(id: id, sources: sources, plan: plan, stats: stats, health: health, inline: .sequential, send: send)
        return run.finish(FanOut.runNow(run.asked, onCompletion: run.completed), cancelled: false)
    }

    /// A source's results frame (line and encoded hits), named after the source when the
    /// backend left `index` empty.
    package static func resultsFrame(id: String?, _ name: String, _ given: SearchResults) -> (
        line: OutgoingLine, hits: [FrameWriter.EncodedHit]
    ) {
        var results = given
        if results.index.isEmpty { results.index = name }
        return FrameWriter.results(id: id, index: name, results: results)
    }

    package static func report(_ c: SourceCompletion) -> SourceReport {
        switch c.outcome {
        case .results(let r): return SourceReport(status: .ok, ms: c.milliseconds, nbHits: r.nbHits)
        case .failed(let e): return SourceReport(status: .error, ms: c.milliseconds, errorCode: e.code)
        case .timedOut: return SourceReport(status: .timeout, ms: c.milliseconds, errorCode: .timeout)
        case .cancelled: return SourceReport(status: .cancelled, ms: c.milliseconds, errorCode: .cancelled)
        }
    }

    /// The merged frame: the page of the merged hit list, and the merged facets if asked.
    package static func mergedFrame(
        id: String?, sources: [FederatedSource], outcomes: [SourceOutcome?], encoded: [[FrameWriter.EncodedHit]],
        plan: MergePlan
    ) -> OutgoingLine {
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
