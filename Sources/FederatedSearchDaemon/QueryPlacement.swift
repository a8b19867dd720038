import FederatedSearchCore
import FederatedSearchFederation

/// Decides where a request's task runs: on the loop thread (no hand-off) or on the global
/// executor (both cores, no blocking of the loop).
enum QueryPlacement {
    /// True when every source answers from memory. Such a request costs tens of microseconds,
    /// less than the two thread hand-offs the global executor would add; I/O-bound sources
    /// (and anything that may wait) always go to the global executor.
    /// A request whose sources recently took longer than this in all (ms) goes to the global
    /// executor even if they are in memory, so one heavy index cannot stall the loop.
    static let loopBudgetMs = 1.0

    static func runsOnLoop(_ sources: [FederatedSource], stats: DaemonStats) -> Bool {
        guard !sources.isEmpty, sources.allSatisfy({ $0.searchable is any InlineSearchable }) else { return false }
        return sources.reduce(0) { $0 + stats.meanLatency($1.name) } <= loopBudgetMs
    }
}
