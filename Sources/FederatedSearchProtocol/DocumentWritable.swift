import FederatedSearchCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A backend that takes the daemon's document writes and forwards them to the engine behind it
/// (a Typesense cluster, say), answering once that engine has acknowledged them.
///
/// Writes reach it through the same ops as an embedded index's (`addDocuments`,
/// `partialUpdateDocuments`, `deleteDocuments`, `deleteBy`, `clearIndex`, `getDocuments`),
/// after the same access checks. The daemon hands each write to the backend's ``writeOrder``
/// as it reads it, so batches are applied in the order they came.
public protocol DocumentWritable: Sendable {
    /// Where the daemon queues this backend's writes, in arrival order.
    var writeOrder: WriteOrder { get }
    /// Applies a batch of changes, in order; the document count after it, when known.
    func apply(_ changes: [DocumentChange]) async throws -> DocumentWriteResult
    /// Deletes the documents the parameters' `filters` select; how many, when known.
    func deleteBy(_ parameters: SearchParameters) async throws -> DocumentWriteResult
    /// The stored documents with these ids, in order (nil for one that does not exist).
    func documents(_ ids: [String]) async throws -> [JSONObject?]
    /// Waits until what `change` (a batch's ``DocumentWriteResult/readBack``) did is served
    /// everywhere. The daemon calls it once the write order has moved on, so the next batches
    /// reach the engine meanwhile, and answers the batch after it.
    func waitUntilVisible(_ change: DocumentChange) async
}

extension DocumentWritable {
    /// An engine that serves a write once it acknowledges it has nothing to wait for.
    public func waitUntilVisible(_ change: DocumentChange) async {}
}

/// What a forwarded write did.
public struct DocumentWriteResult: Sendable, Equatable {
    /// This batch's number from ``WriteOrder/nextSequence()`` (the `seq` of the answer: the
    /// engine behind it has no sequence of its own to give).
    public var sequence: Int64
    /// The index's document count after the write, when the engine says.
    public var documents: Int?
    /// For `deleteBy`, how many documents it deleted.
    public var deleted: Int?
    /// The change to read back before the batch is answered (see
    /// ``DocumentWritable/waitUntilVisible(_:)``); nil: none.
    public var readBack: DocumentChange?

    public init(sequence: Int64, documents: Int?, deleted: Int? = nil, readBack: DocumentChange? = nil) {
        self.sequence = sequence
        self.documents = documents
        self.deleted = deleted
        self.readBack = readBack
    }
}

/// Runs a backend's writes one after another, in the order they were handed over, however many
/// tasks hand them over, and numbers the batches acknowledged.
///
/// The numbers grow across restarts with nothing stored: they start after the microseconds
/// since 1970 at the daemon's start (about 1.8e15, below 2^53, so JSON numbers carry them
/// exactly), and no daemon acknowledges a batch per microsecond. So a `seq` or Algolia
/// `taskID` a client was given before a restart is never given again, and is below every
/// number given after it, as long as the machine's clock does not go back across the restart
/// (a clock set back by more than the time the daemon was down would repeat numbers).
public final class WriteOrder: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)
    private let count: Mutex<Int64>

    /// Numbers batches after `start` (by default the time now, as above).
    public init(start: Int64 = WriteOrder.startOfNumbering()) {
        count = Mutex(start)
    }

    /// The microseconds since 1970 now.
    public static func startOfNumbering() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Queues `work`: it runs once every write queued before it has ended. Called as each
    /// write arrives (on the thread that read it), so the order is the arrival order.
    public func submit(_ work: @escaping @Sendable () async -> Void) {
        last.withLock { previous in
            let before = previous
            previous = Task {
                await before?.value
                await work()
            }
        }
    }

    /// The sequence number of the last batch acknowledged (the start before the first).
    public var acknowledged: Int64 { count.withLock { $0 } }

    /// The next sequence number (the start plus 1, 2, ...), for a batch acknowledged now.
    public func nextSequence() -> Int64 {
        count.withLock { n in
            n += 1
            return n
        }
    }
}
