import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchHTTP
import FederatedSearchCore
import FederatedSearchProtocol

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

/// The loop's inbox: how tasks and other threads hand it messages.
typealias Inbox = LoopInbox<InboxMessage>
