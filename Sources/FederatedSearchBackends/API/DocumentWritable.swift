import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization

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
}

/// What a forwarded write did.
public struct DocumentWriteResult: Sendable, Equatable {
    /// The number of this backend's batches acknowledged so far, this one included (the
    /// `seq` of the answer: the engine behind it has no sequence of its own to give).
    public var sequence: Int64
    /// The index's document count after the write, when the engine says.
    public var documents: Int?
    /// For `deleteBy`, how many documents it deleted.
    public var deleted: Int?

    public init(sequence: Int64, documents: Int?, deleted: Int? = nil) {
        self.sequence = sequence
        self.documents = documents
        self.deleted = deleted
    }
}

extension ClientSearchable: DocumentWritable where Client: DocumentWritable {
    public var writeOrder: WriteOrder { client.writeOrder }
    public func apply(_ changes: [DocumentChange]) async throws -> DocumentWriteResult { try await client.apply(changes) }
    public func deleteBy(_ parameters: SearchParameters) async throws -> DocumentWriteResult { try await client.deleteBy(parameters) }
    public func documents(_ ids: [String]) async throws -> [JSONObject?] { try await client.documents(ids) }
}

/// Runs a backend's writes one after another, in the order they were handed over, however many
/// tasks hand them over.
public final class WriteOrder: Sendable {
    private let last = Mutex<Task<Void, Never>?>(nil)
    private let count = Mutex<Int64>(0)

    public init() {}

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

    /// The sequence number of the last batch acknowledged (0 before the first).
    public var acknowledged: Int64 { count.withLock { $0 } }

    /// The next sequence number (1, 2, ...), for a batch acknowledged now.
    public func nextSequence() -> Int64 {
        count.withLock { n in
            n += 1
            return n
        }
    }
}
