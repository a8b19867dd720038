import FederatedSearchCore
import Synchronization

/// Runs `operation` with a deadline, returning as soon as it finishes, the deadline passes,
/// or the calling task is cancelled, whichever comes first.
///
/// The operation runs in its own task and is cancelled when the deadline passes, but the
/// caller does not wait for it to notice: a backend that ignores cancellation cannot hold a
/// request past its deadline (a structured child would make the group wait for it).
func withDeadline(
    _ timeout: Duration, on executor: (any TaskExecutor)? = nil, _ operation: @escaping @Sendable () async throws -> SearchResults
) async -> SourceOutcome {
    let race = Race()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<SourceOutcome, Never>) in
            race.arm(continuation)
            let work = Task(executorPreference: executor) {
                let outcome: SourceOutcome
                do { outcome = .results(try await operation()) } catch let error as SearchError {
                    outcome = error.code == .cancelled ? .cancelled : .failed(error)
                } catch is CancellationError {
                    outcome = .cancelled
                } catch {
                    outcome = .failed(SearchError(.backendError, String(describing: error)))
                }
                race.finish(outcome)
            }
            let timer = Task(executorPreference: executor) {
                do { try await Task.sleep(for: timeout) } catch { return }
                if race.finish(.timedOut) { work.cancel() }
            }
            race.onFinish {
                work.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        race.finish(.cancelled)
    }
}

/// The shared state of one deadline race: the first `finish` wins and resumes the caller.
private final class Race: Sendable {
    private struct State {
        var continuation: CheckedContinuation<SourceOutcome, Never>?
        var outcome: SourceOutcome?
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<SourceOutcome, Never>) {
        let early = state.withLock { s -> SourceOutcome? in
            if let o = s.outcome { return o }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Records the outcome if none was recorded yet; returns whether this call won.
    @discardableResult
    func finish(_ outcome: SourceOutcome) -> Bool {
        let (won, continuation, cleanup) = state.withLock { s in
            guard s.outcome == nil else {
                return (false, nil as CheckedContinuation<SourceOutcome, Never>?, nil as (@Sendable () -> Void)?)
            }
            s.outcome = outcome
            let c = s.continuation
            s.continuation = nil
            let cl = s.cleanup
            s.cleanup = nil
            return (true, c, cl)
        }
        continuation?.resume(returning: outcome)
        cleanup?()
        return won
    }

    /// Runs `cleanup` once the race is decided (at once if it already is).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let decided = state.withLock { s -> Bool in
            if s.outcome != nil { return true }
            s.cleanup = cleanup
            return false
        }
        if decided { cleanup() }
    }
}
