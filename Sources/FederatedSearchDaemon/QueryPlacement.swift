import FederatedSearchCore
import FederatedSearchFederation

/// Decides where a request's task runs: on the loop thread (no hand-off) or on the global
/// executor (both cores, no blocking of the loop).
enum QueryPlacement {
    /// True when every source answers from memory and the loop has no other search queued.
    /// Such a request costs tens of microseconds, less than the two thread hand-offs the global
    /// executor would add. Under load (a search already on the loop) further requests go to the
    /// global executor, so concurrent clients use every core; I/O-bound sources (and anything
    /// that may wait) always go there.
    /// A request whose sources recently took longer than this in all (ms) goes to the global
    /// executor even if they are in memory, so one heavy index cannot stall the loop.
    static let loopBudgetMs = 1.0

    static func runsOnLoop(_ sources: [FederatedSource], stats: DaemonStats, searchesOnLoop: Int) -> Bool {
        guard searchesOnLoop == 0, !sources.isEmpty, sources.allSatisfy({ $0.searchable is any InlineSearchable }) else {
            return false
        }
        return sources.reduce(0) { $0 + stats.meanLatency($1.name) } <= loopBudgetMs
    }
}
