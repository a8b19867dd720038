import CLibevent
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization

/// A message from a task to the loop thread.
enum InboxMessage: Sendable {
    /// Frame bytes of a request (dropped if its connection has closed or it was superseded).
    case frame(connection: UInt64, key: UInt64, bytes: [UInt8])
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
    /// A `createIndex` finished building its store off the loop (or failed).
    case indexCreated(connection: UInt64, id: String?, name: String, Result<Catalog.Entry, SearchError>)
    /// A `deleteIndex` removed the store, after the writes queued before it.
    case indexDeleted(connection: UInt64, id: String?, name: String)
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
    }
    private let state = Mutex(State())
    private let wakeEvent: OpaquePointer

    init(wakeEvent: OpaquePointer) { self.wakeEvent = wakeEvent }

    /// Queues a message and wakes the loop if the queue was empty. After `close()`, drops it.
    func post(_ message: InboxMessage) {
        state.withLock { s in
            guard !s.closed else { return }
            let wasEmpty = s.messages.isEmpty
            s.messages.append(message)
            // Under the lock, so `close()` cannot slip in between and the event be freed.
            if wasEmpty { event_active(wakeEvent, Int32(EV_READ), 0) }
        }
    }

    /// Takes every queued message (on the loop thread).
    func drain() -> [InboxMessage] {
        state.withLock { s in
            let all = s.messages
            s.messages.removeAll(keepingCapacity: true)
            return all
        }
    }

    /// The loop has stopped: later posts (from tasks still winding down) are dropped.
    func close() {
        state.withLock { $0.closed = true }
    }
}
