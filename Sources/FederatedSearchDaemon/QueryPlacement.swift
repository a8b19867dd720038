import FederatedSearchCore
import FederatedSearchFederation

/// Decides where a request's task runs: on the loop thread (no hand-off) or on the global
/// executor (both cores, no blocking of the loop).
/// How many searches ran where (`stats.placement`): at once on the loop with no task
/// (`direct`), in a task on the loop (`loop`), spread over the loop and the spread threads
/// (`spread`), off the loop one source after another (`inTurn`) or a task per source
/// (`parallel`).
struct PlacementCounts {
    var direct = 0, loop = 0, spread = 0, inTurn = 0, parallel = 0

    var json: JSONObject {
        ["direct": .number(Double(direct)), "loop": .number(Double(loop)), "spread": .number(Double(spread)),
         "inTurn": .number(Double(inTurn)), "parallel": .number(Double(parallel))]
    }
}

enum QueryPlacement {
    /// A request whose sources recently took longer than this in all (ms) goes to the global
    /// executor even if they are in memory, so one heavy index cannot stall the loop.
    static let loopBudgetMs = 1.0

    /// Whether every source answers from memory and they recently took at most
    /// ``loopBudgetMs`` in all. Such a request runs on the loop when no other search is there
    /// (it costs tens of microseconds, less than the two thread hand-offs the global executor
    /// would add); with one there already it goes to the global executor, so concurrent
    /// clients use every core. I/O-bound sources (and anything that may wait) always go there.
    static func areQuick(_ sources: [FederatedSource], stats: DaemonStats) -> Bool {
        guard !sources.isEmpty, sources.allSatisfy({ $0.inline != nil }) else { return false }
        return sources.reduce(0) { $0 + stats.meanLatency($1.name) } <= loopBudgetMs
    }

    /// How a request that does not run on the loop runs its in-memory sources. While other
    /// searches run (several clients), the cores are busy already: a task per source would only
    /// add hand-offs and thread wake-ups, so quick sources run one after another on the
    /// request's task (split corpus, 3 indices, 4 C clients: ~6,800 -> ~7,400 queries/s, daemon CPU
    /// ~245 -> ~225 µs per request). Slower ones keep a task each, so a heavy index does not
    /// hold back a light one's frame; with nothing else running, each gets a core.
    /// `quick`: ``areQuick(_:stats:)`` of the request's sources.
    static func offLoopMode(quick: Bool, runningSearches: Int) -> FanOut.InlineMode {
        runningSearches > 0 && quick ? .sequential : .parallel
    }

    /// A request on the idle loop hands its sources other than the slowest to other threads
    /// only when they recently took at least this long together (ms): waking a sleeping pool
    /// thread costs tens of microseconds here, more than running a small index on the loop
    /// (demo, 2 indices, 1 client: p50 ~195 µs spread against ~180 sequential; the split
    /// corpus's 3 indices of ~45 µs each gain from it: ~240 -> ~184).
    /// The same holds with the spread threads polling for work (``SpreadExecutor``): the demo's
    /// two indices (~70 and ~45 µs) spread with a 20 µs minimum gave no better p50 (176-184
    /// against 180-187 µs) for twice the daemon CPU per request: two vCPUs running two searches
    /// at once do not run each as fast as one alone.
    static let spreadMinimumMs = 0.06

    /// Whether the sources but the slowest (by recent mean latency) have work enough to be
    /// worth handing to other threads (see ``spreadMinimumMs``).
    static func spreads(_ sources: [FederatedSource], stats: DaemonStats) -> Bool {
        guard sources.count > 1 else { return false }
        let means = sources.map { stats.meanLatency($0.name) }
        return means.reduce(0, +) - (means.max() ?? 0) >= spreadMinimumMs
    }
}
