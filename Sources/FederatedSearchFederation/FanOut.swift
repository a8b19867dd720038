import FederatedSearchCore
import Synchronization

/// Sends one query to several sources concurrently, in one task group.
///
/// Each source runs under its own deadline; `onCompletion` is called as each source ends, in
/// completion order, so the caller can stream its frame at once, and always on the calling
/// task (never on a child task's thread). Returns every completion in
/// source order once all have ended. Cancelling the calling task cancels every source.
///
/// Sources that do I/O run as child tasks, each racing its deadline. ``InlineSearchable``
/// sources (in-memory indices) run one after another on the calling task while the children
/// work: a search of a few microseconds is cheaper than the thread hand-offs a child costs.
/// ``InlineMode`` says how in-memory sources run: one after another on the calling task (the
/// default), or each in a child task (for ones that have been slow, so a slow index never holds
/// back a fast one's frame).
public enum FanOut {
    /// How ``InlineSearchable`` sources run.
    public enum InlineMode: Sendable, Equatable {
        /// One after another on the calling task.
        case sequential
        /// Each in a child task.
        case parallel
    }

    /// Runs the sources. `prepare`, if given, sees each completion first, on the thread that
    /// ran the source, as soon as it ends: work done there per source (encoding its answer,
    /// say) runs in parallel for sources that ran in parallel, instead of one after another on
    /// the calling task in `onCompletion`.
    public static func run(
        _ sources: [FederatedSource], inline mode: InlineMode = .sequential, executor: (any TaskExecutor)? = nil,
        prepare: (@Sendable (SourceCompletion) -> Void)? = nil,
        onCompletion: @Sendable (SourceCompletion) -> Void
    ) async -> [SourceCompletion] {
        /// A source run with its completion prepared.
        @Sendable func prepared(_ c: SourceCompletion) -> SourceCompletion {
            prepare?(c)
            return c
        }
        let clock = ContinuousClock()
        let runStart = clock.now
        var done: [SourceCompletion?] = Array(repeating: nil, count: sources.count)
        let parallel = mode == .parallel && sources.count > 1
        let remote = sources.indices.filter { parallel || sources[$0].inline == nil }
        let inline = sources.indices.filter { !parallel && sources[$0].inline != nil }
        if remote.isEmpty {  // every source in memory, on this task: `inline` holds them all, in order
            return runNow(sources, prepare: prepare, onCompletion: onCompletion)
        }
        return await withTaskGroup(of: SourceCompletion.self) { group in
            for position in remote {
                let source = sources[position]
                if source.inline != nil {
                    group.addTask { prepared(runInline(source, position: position, clock: clock, runStart: runStart)) }
                } else {
                    group.addTask { prepared(await runRemote(source, position: position, clock: clock, executor: executor)) }
                }
            }
            for position in inline {
                let c = prepared(runInline(sources[position], position: position, clock: clock, runStart: runStart))
                onCompletion(c)
                done[position] = c
            }
            for await completion in group {
                onCompletion(completion)
                done[completion.position] = completion
            }
            return done.compactMap { $0 }
        }
    }

    /// Runs sources that all answer from memory one after another on the calling thread, and
    /// returns when they are done: what ``run(_:inline:prepare:onCompletion:)``
    /// does with `.sequential`, for a caller that is not in a task (nothing can cancel it).
    public static func runNow(
        _ sources: [FederatedSource], prepare: ((SourceCompletion) -> Void)? = nil,
        onCompletion: (SourceCompletion) -> Void
    ) -> [SourceCompletion] {
        precondition(sources.allSatisfy { $0.inline != nil }, "runNow: every source must answer from memory")
        let clock = ContinuousClock()
        let runStart = clock.now
        return sources.indices.map { position in
            let c = runInline(sources[position], position: position, clock: clock, runStart: runStart)
            prepare?(c)
            onCompletion(c)
            return c
        }
    }

    /// Runs an in-memory source on the calling task. Its deadline counts from `runStart`, the
    /// fan-out's start, so a source that waited for others on the same task (one after
    /// another) is not given more time than one that started at once; a source whose deadline
    /// passed before it started is not run. The deadline is passed in the query (the engine
    /// checks it at its checkpoints, with cancellation); an answer that comes late is still a
    /// timeout.
    static func runInline(
        _ source: FederatedSource, position: Int, clock: ContinuousClock,
        runStart: ContinuousClock.Instant
    ) -> SourceCompletion {
        let start = clock.now
        let deadline = runStart + source.timeout
        var query = source.query
        query.deadline = deadline
        let outcome: SourceOutcome
        if Task.isCancelled {
            outcome = .cancelled
        } else if start > deadline {
            outcome = .timedOut
        } else {
            do {
                let results = try source.inline!.searchInline(query)
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

    /// Runs a source that does I/O in its own task (on `executor`, else the global one),
    /// racing its deadline.
    static func runRemote(
        _ source: FederatedSource, position: Int, clock: ContinuousClock, executor: (any TaskExecutor)?
    ) async -> SourceCompletion {
        let start = clock.now
        let searchable = source.searchable
        var query = source.query
        query.deadline = start + source.timeout
        let q = query
        let outcome = await withDeadline(source.timeout, on: executor) { try await searchable.search(q) }
        return SourceCompletion(position: position, name: source.name, outcome: outcome, elapsed: clock.now - start)
    }
}
