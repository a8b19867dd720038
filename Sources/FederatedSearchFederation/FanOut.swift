import FederatedSearchCore

/// Sends one query to several sources concurrently, in one task group.
///
/// Each source runs under its own deadline; `onCompletion` is called as each source ends, in
/// completion order, so the caller can stream its frame at once. Returns every completion in
/// source order once all have ended. Cancelling the calling task cancels every source.
///
/// Sources that do I/O run as child tasks, each racing its deadline. ``InlineSearchable``
/// sources (in-memory indices) run one after another on the calling task while the children
/// work: a search of a few microseconds is cheaper than the thread hand-offs a child costs.
/// With `inlineInParallel` (for in-memory sources that have been slow), each runs in a child
/// task instead, so a slow index never holds back a fast one's frame.
public enum FanOut {
    public static func run(
        _ sources: [FederatedSource], inlineInParallel: Bool = false, onCompletion: @Sendable (SourceCompletion) -> Void
    ) async -> [SourceCompletion] {
        let clock = ContinuousClock()
        var done: [SourceCompletion?] = Array(repeating: nil, count: sources.count)
        let parallel = inlineInParallel && sources.count > 1
        let remote = sources.indices.filter { parallel || !(sources[$0].searchable is any InlineSearchable) }
        let inline = sources.indices.filter { !parallel && sources[$0].searchable is any InlineSearchable }
        func runInlineSources() {
            for position in inline {
                let c = runInline(sources[position], position: position, clock: clock)
                onCompletion(c)
                done[position] = c
            }
        }
        if remote.isEmpty {
            runInlineSources()
            return done.compactMap { $0 }
        }
        return await withTaskGroup(of: SourceCompletion.self) { group in
            for position in remote {
                let source = sources[position]
                if source.searchable is any InlineSearchable {
                    group.addTask { runInline(source, position: position, clock: clock) }
                } else {
                    group.addTask { await runRemote(source, position: position, clock: clock) }
                }
            }
            runInlineSources()
            for await completion in group {
                onCompletion(completion)
                done[completion.position] = completion
            }
            return done.compactMap { $0 }
        }
    }

    /// Runs an in-memory source on the calling task. Its deadline is passed in the query
    /// (the engine checks it with cancellation); an answer that comes late is still a timeout.
    static func runInline(_ source: FederatedSource, position: Int, clock: ContinuousClock) -> SourceCompletion {
        let start = clock.now
        let deadline = start + source.timeout
        var query = source.query
        query.deadline = deadline
        let outcome: SourceOutcome
        if Task.isCancelled {
            outcome = .cancelled
        } else {
            do {
                let results = try (source.searchable as! any InlineSearchable).searchInline(query)
                outcome = clock.now > deadline ? .timedOut : .results(results)
            } catch let error as SearchError {
                outcome = error.code == .timeout ? .timedOut : error.code == .cancelled ? .cancelled : .failed(error)
            } catch is CancellationError {
                outcome = clock.now > deadline ? .timedOut : .cancelled
            } catch {
                outcome = .failed(SearchError(.backendError, String(describing: error)))
            }
        }
        return SourceCompletion(position: position, name: source.name, outcome: outcome, elapsed: clock.now - start)
    }

    /// Runs a source that does I/O in its own task, racing its deadline.
    static func runRemote(_ source: FederatedSource, position: Int, clock: ContinuousClock) async -> SourceCompletion {
        let start = clock.now
        let searchable = source.searchable
        var query = source.query
        query.deadline = start + source.timeout
        let q = query
        let outcome = await withDeadline(source.timeout) { try await searchable.search(q) }
        return SourceCompletion(position: position, name: source.name, outcome: outcome, elapsed: clock.now - start)
    }
}
