import FederatedSearchCore

/// Sends one query to several sources concurrently, in one task group.
///
/// Each source runs under its own deadline; `onCompletion` is called as each source ends, in
/// completion order, so the caller can stream its frame at once. Returns every completion in
/// source order once all have ended. Cancelling the calling task cancels every source.
public enum FanOut {
    public static func run(
        _ sources: [FederatedSource], onCompletion: @Sendable (SourceCompletion) -> Void
    ) async -> [SourceCompletion] {
        let clock = ContinuousClock()
        // One source: no group, no extra hop.
        if sources.count == 1 {
            let c = await runOne(sources[0], position: 0, clock: clock)
            onCompletion(c)
            return [c]
        }
        return await withTaskGroup(of: SourceCompletion.self) { group in
            for (position, source) in sources.enumerated() {
                group.addTask { await runOne(source, position: position, clock: clock) }
            }
            var done: [SourceCompletion?] = Array(repeating: nil, count: sources.count)
            for await completion in group {
                onCompletion(completion)
                done[completion.position] = completion
            }
            return done.compactMap { $0 }
        }
    }

    static func runOne(_ source: FederatedSource, position: Int, clock: ContinuousClock) async -> SourceCompletion {
        let start = clock.now
        let searchable = source.searchable
        let query = source.query
        let outcome = await withDeadline(source.timeout) { try await searchable.search(query) }
        return SourceCompletion(position: position, name: source.name, outcome: outcome, elapsed: clock.now - start)
    }
}
