import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchFederation

/// How many searches ran where (`stats.placement`), by ``QueryPlacement/Kind``.
struct PlacementCounts {
    var direct = 0, loop = 0, parallel = 0

    mutating func count(_ kind: QueryPlacement.Kind) {
        switch kind {
        case .direct: direct += 1
        case .loop: loop += 1
        case .parallel: parallel += 1
        }
    }

    var json: JSONObject {
        ["direct": .number(Double(direct)), "loop": .number(Double(loop)), "parallel": .number(Double(parallel))]
    }
}

/// Decides where a search runs: on the loop thread (no hand-off, its sources one after
/// another), or on the global executor (both cores, no blocking of the loop, a task per source).
enum QueryPlacement {
    /// Where a search runs.
    enum Kind: Equatable {
        /// At once on the loop thread, with no task: a client alone, waiting for its only request.
        case direct
        /// In a task on the loop's executor, its sources one after another.
        case loop
        /// Off the loop, a task per source.
        case parallel

        /// Whether the search's task (or the search itself) runs on the loop thread.
        var isOnLoop: Bool { self == .direct || self == .loop }

        /// Whether the search hands its frames to the connection on the loop thread itself,
        /// rather than through the inbox: it runs whole on the loop, one source after another.
        var deliversOnLoop: Bool { isOnLoop }

        /// How the fan-out runs the search's in-memory sources.
        var inline: FanOut.InlineMode {
            switch self {
            case .direct, .loop: .sequential
            case .parallel: .parallel
            }
        }
    }

    /// Where a search runs, from what the loop knows when it reads the search's line.
    /// - `quick`: ``areQuick(_:stats:)`` of its sources.
    /// - `searchesOnLoop`, `runningSearches`: searches whose tasks run on the loop's executor;
    ///   searches running anywhere.
    /// - `alone`: the client is alone (``RecentRequesters``).
    /// - `lineIsLast`: the search's line is the last one read, with nothing after it.
    ///
    /// Quick sources run on the loop unless a search is there already. A search on the
    /// loop whose client waits for it alone (its line the last read, nothing else running)
    /// runs at once with no task: nothing can cancel it while it runs (a `cancel`, a newer
    /// keystroke or the client's going away is read after it), and it saves the task's
    /// creation and its hand-off to the loop's executor, a few microseconds of each round trip.
    /// A client that pipelines keeps the task, and so do several clients: a search run at once
    /// ends before the loop reads the next request, which would then find the loop free and
    /// run there too, one after another on one core, leaving the other core idle. Off the
    /// loop, each source gets a task of its own.
    ///
    /// A search that `waitsOnLoop` (``waitsOnLoop(_:stats:)``) runs in a task on the loop
    /// whatever else runs there: it spends its time waiting for the answer, which arrives on
    /// the loop thread, and little working.
    static func decide(
        quick: Bool, waitsOnLoop: Bool = false, searchesOnLoop: Int, runningSearches: Int, alone: Bool, lineIsLast: Bool
    ) -> Kind {
        if waitsOnLoop { return .loop }
        guard quick && searchesOnLoop == 0 else { return .parallel }
        guard runningSearches == 0 && alone else { return .loop }
        return lineIsLast ? .direct : .loop
    }

    /// A request whose sources recently took longer than this in all (ms) goes to the global
    /// executor even if they are in memory, so one heavy index cannot stall the loop.
    static let loopBudgetMs = 1.0

    /// Whether every source answers from memory and they recently took at most
    /// ``loopBudgetMs`` in all. Such a request runs on the loop when no other search is there
    /// (it costs tens of microseconds, less than the two thread hand-offs the global executor
    /// would add); with one there already it goes to the global executor, so concurrent
    /// clients use every core. I/O-bound sources (and anything that may wait) always go there.
    /// A request that asks for more than ``loopMaxHits`` hits in all is never quick, whatever
    /// the indices' recent latency: building and encoding a page of a thousand large documents
    /// takes far longer than the searches the mean was measured on, and on the loop it would
    /// stall every other client.
    static func areQuick(_ sources: [FederatedSource], stats: DaemonStats) -> Bool {
        guard !sources.isEmpty, sources.allSatisfy({ $0.inline != nil }),
            sources.reduce(0, { $0 + hitsAsked($1.query.parameters) }) <= loopMaxHits
        else { return false }
        return sources.reduce(0) { $0 + stats.meanLatency($1.index) } <= loopBudgetMs
    }

    /// Whether the request's sources wait on the loop's own outgoing HTTP client (at least one:
    /// ``FederatedSource/waitsOnlyOnHTTPLoop``), the others being in memory and quick, for a
    /// page of at most ``loopMaxHits`` in all. Run on the loop, the answer resumes the search
    /// where it arrives: four thread hand-offs fewer than from the global executor (the search
    /// handed to it, the request to the loop, the answer back, the frames to the loop).
    static func waitsOnLoop(_ sources: [FederatedSource], stats: DaemonStats) -> Bool {
        guard sources.contains(where: \.waitsOnlyOnHTTPLoop),
            sources.allSatisfy({ $0.waitsOnlyOnHTTPLoop || $0.inline != nil }),
            sources.reduce(0, { $0 + hitsAsked($1.query.parameters) }) <= loopMaxHits
        else { return false }
        return sources.reduce(0) { $0 + ($1.inline == nil ? 0 : stats.meanLatency($1.index)) } <= loopBudgetMs
    }

    /// The most hits a search may ask of all its sources together and still run on the loop.
    static let loopMaxHits = 200

    /// The hits a source is asked to return.
    static func hitsAsked(_ p: SearchParameters) -> Int { p.length ?? p.hitsPerPage }
}
