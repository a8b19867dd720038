#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The one way work enters a loop from other threads: a mutex-protected queue plus
/// `event_active` on a wake-up event, as memcached's thread.c hands connections to its
/// worker loops. The daemon's loop and the outgoing HTTP client's loop each have one.
///
/// `@unchecked Sendable` is safe here: the queue is only touched under the `Mutex`, and the
/// only use of the wake-up event from other threads is `event_active`, which libevent makes
/// thread-safe once `evthread_use_pthreads()` has run (``EventBase`` calls it before making
/// the base). The event is freed by ``close()``, under the same lock, after which nothing is
/// posted; the loop's owner calls it before it frees the base, on the loop thread.
public final class LoopInbox<Message: Sendable>: @unchecked Sendable {
    private struct State {
        var messages: [Message] = []
        /// Set by close(): posts are then dropped.
        var closed = false
        /// The loop is handing out messages and will look again before it stops: a post
        /// needs no wake-up.
        var draining = false
    }
    private let state = Mutex(State())
    /// The wake-up event; nil once closed. Read and set only inside `state.withLock`.
    private var wake: LoopEvent?
    /// How many times one ``drain(_:)`` looks again for messages posted while it ran; past
    /// that, the rest is left to a new activation. (libevent runs an event activated during
    /// its pass in the same pass, so this bounds one callback, not the time before sockets
    /// are read.)
    public let maxRounds: Int

    /// An inbox on `base`: when messages arrive, the loop thread runs `onWake`, which calls
    /// ``drain(_:)`` (it must not hold the inbox's owner strongly).
    public init(on base: EventBase, maxRounds: Int = 1, onWake: @escaping () -> Void) throws(SystemCallError) {
        self.maxRounds = maxRounds
        guard let wake = LoopEvent(on: base, .trigger, onWake) else {
            throw SystemCallError(call: "event_new(inbox)", errno: errno)
        }
        self.wake = wake
    }

    /// Queues a message and wakes the loop if the queue was empty and the loop is not draining
    /// it. After ``close()``, drops it and returns false.
    @discardableResult
    public func post(_ message: Message) -> Bool {
        state.withLock { s in
            guard !s.closed, let wake else { return false }
            let wasEmpty = s.messages.isEmpty
            s.messages.append(message)
            // Under the lock, so close() cannot free the event in between.
            if wasEmpty && !s.draining { wake.activate() }
            return true
        }
    }

    /// Hands every queued message to `handle` (on the loop thread), then those posted while it
    /// ran, up to ``maxRounds`` rounds: work running on the loop posts from inside `handle`,
    /// and it is handled in the same turn instead of waking the loop again.
    public func drain(_ handle: (Message) -> Void) {
        var batch = state.withLock { s -> [Message] in
            s.draining = true
            let all = s.messages
            s.messages.removeAll(keepingCapacity: true)
            return all
        }
        var round = 1
        while true {
            for message in batch { handle(message) }
            batch = state.withLock { s -> [Message] in
                if s.messages.isEmpty || round >= maxRounds || s.closed {
                    s.draining = false
                    // Messages left for the next turn need the wake-up their posts skipped.
                    if !s.messages.isEmpty, !s.closed { wake?.activate() }
                    return []
                }
                let all = s.messages
                s.messages.removeAll(keepingCapacity: true)
                return all
            }
            if batch.isEmpty { return }
            round += 1
        }
    }

    /// The loop has stopped: the wake-up event is freed, and later posts (from tasks still
    /// winding down) are dropped.
    public func close() {
        state.withLock { s in
            s.closed = true
            s.messages.removeAll()
            wake = nil
        }
    }
}
