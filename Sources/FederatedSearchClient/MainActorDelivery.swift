import Dispatch
import FederatedSearchProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What the answer to a request sent with ``DaemonConnection/send(_:onMainActor:)`` hands its
/// handler, in this order: batches of frames, then one end.
public enum ResponseEvent: Sendable {
    /// Frames that arrived together, in the order the daemon sent them.
    case frames([Frame])
    /// The answer ended: its last frame (`done`, the answer itself, or a request-level
    /// `error`) was in the last batch.
    case ended
    /// The answer cannot end: the connection broke (``ClientError/disconnected(_:)``) or was
    /// closed (``ClientError/closed``).
    case failed(ClientError)
}

/// A request sent with a main-actor handler: ``cancel()`` stops it, on the daemon too.
public final class RequestHandle: Sendable {
    /// The id the connection gave the request.
    public let id: String
    private let cancelled = Atomic(false)
    private let onCancel: @Sendable () -> Void

    /// A handle whose ``cancel()`` runs `onCancel` once (a stand-in transport's, in tests).
    public init(id: String, onCancel: @escaping @Sendable () -> Void) {
        self.id = id
        self.onCancel = onCancel
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Stops the request: its handler is not called again once this returns on the main
    /// actor, and a search still running on the daemon is cancelled there.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        onCancel()
    }
}

/// A request's main-actor handler, as the connection's reader thread reaches it.
///
/// The reader hands each batch to the main queue asynchronously (`DispatchQueue.main.async`),
/// in a block that runs the handler on the main actor (`MainActor.assumeIsolated`: the main
/// actor's executor is the main dispatch queue). Blocks of the main queue run one at a time, in
/// the order they were queued, so a request's batches and its end reach the handler in order.
/// The main queue must run: an `async` `main` (which Swift ends with `dispatchMain()`), or a
/// run loop that serves it (a UI framework's, XCTest's).
final class MainActorRoute: Sendable {
    let handle: RequestHandle
    private let handler: @MainActor @Sendable (ResponseEvent) -> Void
    /// Set on the main actor once the handler has had the end (or a failure): nothing comes
    /// after it.
    private let finished = Atomic(false)
    /// Set by ``fail(_:)`` on whichever thread ends the request (`close()` on the main actor,
    /// the reader, the writer): a batch handed over after it, or waiting to be, is dropped, so
    /// a request closed or broken hears only its failure from then on.
    private let failing = Atomic(false)

    init(handle: RequestHandle, handler: @escaping @MainActor @Sendable (ResponseEvent) -> Void) {
        self.handle = handle
        self.handler = handler
    }

    /// Hands `frames` over (`ends`: then the end), unless the request is cancelled by then.
    /// Called on the reader thread only.
    func deliver(_ frames: [Frame], ends: Bool) {
        DispatchQueue.main.async { [self] in run(frames, ends: ends) }
    }

    /// The handler's part of a hand-off, in a block of the main queue.
    private func run(_ frames: [Frame], ends: Bool) {
        MainActor.assumeIsolated {
            guard live, !failing.load(ordering: .acquiring) else { return }
            if !frames.isEmpty { handler(.frames(frames)) }
            if ends, live {
                finished.store(true, ordering: .relaxed)
                handler(.ended)
            }
        }
    }

    /// Ends the request with `error` (from any thread): the handler hears it unless it has
    /// had the end already or the request is cancelled.
    func fail(_ error: ClientError) {
        failing.store(true, ordering: .releasing)
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                guard live else { return }
                finished.store(true, ordering: .relaxed)
                handler(.failed(error))
            }
        }
    }

    /// Whether the handler may still be called (read and set only on the main actor).
    private var live: Bool { !handle.isCancelled && !finished.load(ordering: .relaxed) }
}
