import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// One federated search around its fan-out: which sources are asked (a suspended source is
/// skipped), how they run, what each completion sends, and the merged and `done` frames at the
/// end. ``SearchExecutor`` runs the fan-out between ``init`` and ``finish(_:cancelled:)``, in a
/// task or on the calling thread.
package struct SearchRun: Sendable {
    package let id: String?
    package let sources: [FederatedSource]
    package let plan: MergePlan
    package let stats: DaemonStats
    package let start: ContinuousClock.Instant
    /// The sources asked (those whose breaker admits them), and their positions in `sources`.
    package let asked: [FederatedSource]
    package let askedPositions: [Int]
    /// Sources suspended by their breaker: position → ms until the next probe.
    package let skipped: [Int: Double]
    /// How the asked sources run.
    package let mode: FanOut.InlineMode
    /// Work done on the thread that ran a source, if any (encoding its frame).
    package let prepare: (@Sendable (SourceCompletion) -> Void)?
    /// Records a completion and sends its frame.
    package let completed: @Sendable (SourceCompletion) -> Void
    private let encoded: EncodedHits
    private let send: @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void

    /// `probes` records the breaker probes this search holds while they run (see ``HeldProbes``).
    package init(
        id: String?, sources: [FederatedSource], plan: MergePlan, stats: DaemonStats, health: SourceHealth,
        probes: HeldProbes = HeldProbes(), inline: FanOut.InlineMode,
        send: @escaping @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void
    ) {
        let clock = ContinuousClock()
        let start = clock.now
        // Sources whose breaker is open are not asked.
        var askedSources: [FederatedSource] = []
        var askedSourcePositions: [Int] = []
        var skipped: [Int: Double] = [:]
        for (position, source) in sources.enumerated() {
            switch health.admit(source.index, now: start) {
            case .probe:
                probes.hold(source.index)
                askedSources.append(source)
                askedSourcePositions.append(position)
            case .allow:
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
        let mode = inline
        // Each source's results frame is encoded on the thread that ran the source (sources run
        // in parallel are not encoded one after another on this task). Not when every source
        // runs on this task: there it would only add a hand-over.
        let runsElsewhere = mode != .sequential || asked.contains { $0.inline == nil }
        let frames = runsElsewhere ? ResultFrames(count: asked.count) : nil
        var prepare: (@Sendable (SourceCompletion) -> Void)? = nil
        if let frames {
            prepare = { completion in
                guard case .results(let results) = completion.outcome else { return }
                frames.set(completion.position, SearchExecutor.resultsFrame(id: id, completion.name, results))
            }
        }
        // Quick sources run in turn on one thread (under a millisecond in all): a source's frame
        // waits for the next ones, so a client waiting in read(2) is woken once for the whole
        // answer, not once per source: each wake-up costs the loop time in send(2) and the
        // client a wake-up of its own.
        let holdsFrames = !runsElsewhere && asked.count > 1
        let outstanding = Atomic<Int>(asked.count)
        self.completed = { completion in
            let more = holdsFrames && outstanding.subtract(1, ordering: .relaxed).newValue > 0
            let source = asked[completion.position]
            // A cancelled source (the request was cancelled or superseded) may not have run at
            // all: its near-zero time is no latency sample. Latency is the index's, whatever
            // name the source answers under.
            if case .cancelled = completion.outcome {
            } else {
                stats.recordSource(source.index, ms: completion.milliseconds)
            }
            // A probe's result is its breaker's verdict; a probe that gives none is given back.
            let wasProbe = probes.release(source.index)
            if SourceHealth.isVerdict(completion.outcome, of: source, ranFor: completion.elapsed) {
                health.record(source.index, outcome: completion.outcome, now: clock.now)
            } else if wasProbe {
                health.abandonProbe(source.index)
            }
            switch completion.outcome {
            case .results(let results):
                let (line, hits) = frames?.take(completion.position) ?? SearchExecutor.resultsFrame(id: id, completion.name, results)
                encoded.set(askedPositions[completion.position], hits)
                send(line, more)
            case .failed(let error):
                // A page dropped at the limit was built that far: the loop may trim the heap.
                if error.code == .answerTooLarge, let limit = source.query.answerByteLimit { stats.recordRefusedPage(bytes: limit) }
                send(OutgoingLine(Frame.error(id: id, index: completion.name, error: error).line()), more)
            case .timedOut:
                let ms = source.timeout.components
                let limit = ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000
                let error = SearchError(.timeout, "\(completion.name): no answer within \(limit) ms; the source was cancelled")
                send(OutgoingLine(Frame.error(id: id, index: completion.name, error: error).line()), more)
            case .cancelled:
                break
            }
        }
        self.id = id
        self.sources = sources
        self.plan = plan
        self.stats = stats
        self.start = start
        self.asked = asked
        self.askedPositions = askedPositions
        self.skipped = skipped
        self.mode = mode
        self.prepare = prepare
        self.encoded = encoded
        self.send = send
    }

    /// Sends the merged frame (unless the search was cancelled or asks for none) and returns
    /// `done`, from the fan-out's completions.
    package func finish(_ completions: [SourceCompletion], cancelled: Bool) -> Frame {
        var outcomes: [SourceOutcome?] = Array(repeating: nil, count: sources.count)
        var reports: [SourceReport?] = Array(repeating: nil, count: sources.count)
        for c in completions {
            let position = askedPositions[c.position]
            outcomes[position] = c.outcome
            reports[position] = SearchExecutor.report(c)
        }
        for (position, ms) in skipped {
            reports[position] = SourceReport(status: .skipped, ms: 0, errorCode: .suspended, suspendedForMs: ms)
        }
        let named = sources.indices.map { (name: sources[$0].name, report: reports[$0]!) }
        let okCount = named.filter { $0.report.status == .ok }.count
        let status: DoneStatus =
            cancelled ? .cancelled : okCount == named.count ? .ok : okCount == 0 ? .failed : .partial
        if !cancelled, plan.options.strategy != .grouped {
            send(SearchExecutor.mergedFrame(id: id, sources: sources, outcomes: outcomes, encoded: encoded.all(), plan: plan), true)
        }
        stats.recordRequest(failed: status != .ok)
        let elapsed = (ContinuousClock.now - start).components
        let ms = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        if Log.enabled(.debug) {
            Log.debug(
                "request done: \(status.rawValue) in \(ms) ms",
                [
                    ("REQUEST_ID", id.map(RequestID.text) ?? "-"), ("STATUS", status.rawValue),
                    ("SOURCES", named.map { "\($0.name):\($0.report.status.rawValue)" }.joined(separator: ",")),
                ])
        }
        return .done(id: id, status: status, sources: named, ms: ms)
    }
}

/// Each source's encoded results frame, from the thread that ran it to the calling task.
private final class ResultFrames: Sendable {
    private let store: Mutex<[(line: OutgoingLine, hits: [FrameWriter.EncodedHit])?]>
    package init(count: Int) { store = Mutex(Array(repeating: nil, count: count)) }
    package func set(_ position: Int, _ frame: (line: OutgoingLine, hits: [FrameWriter.EncodedHit])) {
        store.withLock { $0[position] = frame }
    }
    /// The frame of the source at `position` (once), if it was encoded.
    package func take(_ position: Int) -> (line: OutgoingLine, hits: [FrameWriter.EncodedHit])? {
        store.withLock { frames in
            defer { frames[position] = nil }
            return frames[position]
        }
    }
}

/// Hits encoded by the results frames, kept for the merged frame.
private final class EncodedHits: Sendable {
    private let store: Mutex<[[FrameWriter.EncodedHit]]>
    package init(count: Int) { store = Mutex(Array(repeating: [], count: count)) }
    package func set(_ position: Int, _ hits: [FrameWriter.EncodedHit]) { store.withLock { $0[position] = hits } }
    package func all() -> [[FrameWriter.EncodedHit]] { store.withLock { $0 } }
}
