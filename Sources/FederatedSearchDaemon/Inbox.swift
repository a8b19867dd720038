import CLibevent
import FederatedSearchServer
import FederatedSearchHTTP
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization

/// A message from a task to the loop thread.
enum InboxMessage: Sendable {
    /// Frame bytes of a request (dropped if its connection has closed or it was superseded).
    case frame(connection: UInt64, key: UInt64, bytes: OutgoingLine)
    /// A job of a task that runs on the loop thread (see ``LoopExecutor``).
    case job(UnownedJob)
    /// A search finished: its last frame (`done`) and the end of the request, together.
    case requestFinished(connection: UInt64, key: UInt64, id: String?, lastFrame: [UInt8])
    /// A reload finished loading (or failed) off the loop.
    case reloaded(ReloadOutcome)
    /// A long request line decoded off the loop.
    case decoded(connection: UInt64, Result<Request, RequestError>)
    /// The answer of an index writer (a write, or a read queued behind writes).
    case reply(connection: UInt64, bytes: [UInt8])
    /// A large `getDocuments` answer, read from memory and encoded off the loop.
    case encodedReply(connection: UInt64, bytes: [UInt8])
    /// A `createIndex` finished building its store off the loop (or failed).
    case indexCreated(IndexRequester, name: String, Result<Catalog.Entry, SearchError>)
    /// A `deleteIndex` removed the store, after the writes queued before it (or, for an index
    /// on another backend, failed to remove its storage: the index stays).
    case indexDeleted(IndexRequester, name: String, Result<Void, SearchError>)
    /// Work a task hands to the loop thread (the HTTP API's index administration).
    case onLoop(@Sendable (EventLoop) -> Void)
    /// Output of an HTTP exchange (see ``HTTPListener``).
    case http(exchange: UInt64, HTTPOutput)
}

/// The one way work re-enters the loop: a mutex-protected queue plus `event_active` on a
/// wake-up event, as memcached's thread.c hands connections to its worker loops.
///
/// `@unchecked Sendable` is safe here: the queue is only touched under the `Mutex`, and the
/// only use of `wakeEvent` from other threads is `event_active`, which libevent makes
/// thread-safe once `evthread_use_pthreads()` has run (the loop calls it before creating the
/// base). The event is freed only after the loop has stopped and every poster is gone.
final class Inbox: @unchecked Sendable {
    private struct State {
        var messages: [InboxMessage] = []
        /// Set when the loop has stopped: the wake-up event may be freed, so nothing is posted.
        var closed = false
        /// The loop is handing out messages and will look again before it stops: a post
        /// needs no wake-up.
        var draining = false
    }
    private let state = Mutex(State())
    private let wakeEvent: OpaquePointer

    /// How many times one drain looks again for messages posted while it ran; past that, the
    /// rest is left to a new activation of the wake-up event. (libevent runs an event activated
    /// during its pass in the same pass, so this bounds one callback, not the time before
    /// sockets are read: a task that posts without end would hold the loop with or without it.)
    static let maxRounds = 8

    init(wakeEvent: OpaquePointer) { self.wakeEvent = wakeEvent }

    /// Queues a message and wakes the loop if the queue was empty and the loop is not draining
    /// it. After `close()`, drops it and returns false.
    @discardableResult
    func post(_ message: InboxMessage) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            let wasEmpty = s.messages.isEmpty
            s.messages.append(message)
            // Under the lock, so `close()` cannot slip in between and the event be freed.
            if wasEmpty && !s.draining { event_active(wakeEvent, Int32(EV_READ), 0) }
            return true
        }
    }

    /// Hands every queued message to `handle` (on the loop thread), then those posted while it
    /// ran, up to ``maxRounds`` rounds: a search task running on the loop posts its frames and
    /// its end from inside `handle`, and they go out in the same loop turn instead of waking
    /// the loop again for each.
    func drain(_ handle: (InboxMessage) -> Void) {
        var batch = state.withLock { s -> [InboxMessage] in
            s.draining = true
            let all = s.messages
            s.messages.removeAll(keepingCapacity: true)
            return all
        }
        var round = 1
        while true {
            for message in batch { handle(message) }
            batch = state.withLock { s -> [InboxMessage] in
                if s.messages.isEmpty || round >= Self.maxRounds || s.closed {
                    s.draining = false
                    // Messages left for the next turn need the wake-up their posts skipped.
                    if !s.messages.isEmpty && !s.closed { event_active(wakeEvent, Int32(EV_READ), 0) }
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

    /// The loop has stopped: later posts (from tasks still winding down) are dropped.
    func close() {
        state.withLock { $0.closed = true }
    }
}
