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
/// The reader hands each batch to the main queue synchronously (`DispatchQueue.main.sync`), in
/// a block that runs the handler on the main actor (`MainActor.assumeIsolated`: blocks of the
/// main queue run there). Once `dispatchMain()` has run (Swift's `async` `main` calls it), the
/// main queue belongs to no thread, and while the main actor is idle, as it is while a UI
/// waits for a keystroke's answer, the block runs at once on the reader's own thread: no
/// thread is woken for it. While the main actor is busy, the reader waits for it, and the
/// daemon's later frames wait in the socket meanwhile. An asynchronous block would wake a
/// second thread per batch, whose CPU time the daemon, answering the rest of the request on
/// the same few cores, would miss; a task resumed from another thread would wake two.
///
/// Where a run loop binds the main queue to the main thread (a UI framework's, XCTest's), a
/// synchronous block would wake the main thread and then the waiting reader: the first block
/// that runs on another thread than the one handing it over turns the hand-off asynchronous
/// for the rest of the process.
///
/// Only the reader thread delivers (it is never the main thread, so the synchronous hand-off
/// cannot wait for itself); failures from other threads go asynchronously.
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

    /// Whether a main-queue block handed over synchronously runs on the handing thread (see
    /// above); false once one has not.
    static let handsOverInline = Atomic(true)

    /// Hands `frames` over (`ends`: then the end), unless the request is cancelled by then,
    /// and returns once the handler has had them (unless the hand-off is asynchronous, see
    /// above). Called on the reader thread only.
    func deliver(_ frames: [Frame], ends: Bool) {
        guard Self.handsOverInline.load(ordering: .relaxed) else {
            DispatchQueue.main.async { [self] in run(frames, ends: ends) }
            return
        }
        let reader = pthread_self()
        DispatchQueue.main.sync { [self] in
            if pthread_equal(pthread_self(), reader) == 0 { Self.handsOverInline.store(false, ordering: .relaxed) }
            run(frames, ends: ends)
        }
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
