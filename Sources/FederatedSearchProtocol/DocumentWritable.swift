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
    /// Applies batches that queued up behind each other, in order, each answered on its own:
    /// an engine that takes many changes in one request takes them together (one round trip,
    /// one wait to be served, for many clients' batches). By default, one after another.
    func applyGroup(_ batches: [[DocumentChange]]) async -> [Result<DocumentWriteResult, SearchError>]
    /// Deletes the documents the parameters' `filters` select; how many, when known.
    func deleteBy(_ parameters: SearchParameters) async throws -> DocumentWriteResult
    /// The stored documents with these ids, in order (nil for one that does not exist).
    func documents(_ ids: [String]) async throws -> [JSONObject?]
    /// Waits until what `change` (a batch's ``DocumentWriteResult/readBack``, the batch
    /// numbered `sequence`) did is served everywhere. The daemon calls it once the write order
    /// has moved on, so the next batches reach the engine meanwhile, and answers the batch
    /// after it; a later write may have changed the document since (see
    /// ``WriteOrder/isVisible(_:)``).
    func waitUntilVisible(_ change: DocumentChange, sequence: Int64) async
}

extension DocumentWritable {
    /// An engine that serves a write once it acknowledges it has nothing to wait for.
    public func waitUntilVisible(_ change: DocumentChange, sequence: Int64) async {}

    public func applyGroup(_ batches: [[DocumentChange]]) async -> [Result<DocumentWriteResult, SearchError>] {
        var out: [Result<DocumentWriteResult, SearchError>] = []
        for b in batches {
            do {
                out.append(.success(try await apply(b)))
            } catch let e as SearchError {
                out.append(.failure(e))
            } catch {
                out.append(.failure(SearchError(.backendError, "\(error)")))
            }
        }
        return out
    }
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
    /// ``DocumentWritable/waitUntilVisible(_:sequence:)``); nil: none.
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
    /// The last work queued, and the group of batches still taking more (see
    /// ``submitBatch(_:apply:answer:)``).
    private struct State {
        var last: Task<Void, Never>?
        var open: BatchGroup?
        var groups = 0
        var batches = 0
        /// The last write that every node was seen to serve (see ``recordVisible(through:)``).
        var visibleThrough: Int64 = 0
    }
    private let state = Mutex(State())
    private let count: Mutex<Int64>

    /// Batches of changes queued behind the work before them, applied together.
    private final class BatchGroup: Sendable {
        let batches = Mutex<[(changes: [DocumentChange], answer: @Sendable (Result<DocumentWriteResult, SearchError>) -> Void)]>([])
        /// The changes it holds.
        let changes = Mutex(0)
    }

    /// The most changes a group takes: past it, a batch starts the next group (one request
    /// stays of a size the engine takes at once, and a failed one fails fewer batches).
    public static let maxGroupChanges = 10_000

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
        state.withLock { s in
            s.open = nil  // batches after this work wait for it
            chain(&s, work)
        }
    }

    /// Queues a batch of changes. Batches that arrive while the work before them runs join
    /// one group, applied together by `apply` (one result per batch, in order) once that work
    /// has ended, and each is answered with its own result; a group takes no batch that
    /// arrived after other work was queued, so the arrival order holds. When `apply` also
    /// gives something to wait for (that the group is served everywhere), the order moves on
    /// at once and the group's batches are answered after that wait.
    public func submitBatch(
        _ changes: [DocumentChange],
        apply: @escaping @Sendable ([[DocumentChange]]) async -> GroupOutcome,
        answer: @escaping @Sendable (Result<DocumentWriteResult, SearchError>) -> Void
    ) {
        state.withLock { s in
            s.batches += 1
            if let open = s.open, open.changes.withLock({ $0 + changes.count <= Self.maxGroupChanges || $0 == 0 }) {
                open.batches.withLock { $0.append((changes, answer)) }
                open.changes.withLock { $0 += changes.count }
                return
            }
            let group = BatchGroup()
            group.batches.withLock { $0.append((changes, answer)) }
            group.changes.withLock { $0 = changes.count }
            s.open = group
            s.groups += 1
            chain(&s) { [self] in
                // Closed as it starts: batches from now on make the next group.
                let batches = state.withLock { s in
                    if s.open === group { s.open = nil }
                    return group.batches.withLock { $0 }
                }
                let outcome = await apply(batches.map(\.changes))
                let answerAll: @Sendable () -> Void = {
                    for (i, b) in batches.enumerated() {
                        b.answer(
                            i < outcome.results.count
                                ? outcome.results[i] : .failure(SearchError(.internalError, "the backend gave no result for this batch")))
                    }
                }
                guard let settle = outcome.settle else { return answerAll() }
                Task {
                    await settle()
                    answerAll()
                }
            }
        }
    }

    /// What applying a group of batches gave: a result per batch, and what to wait for before
    /// answering them, if anything.
    public struct GroupOutcome: Sendable {
        public var results: [Result<DocumentWriteResult, SearchError>]
        public var settle: (@Sendable () async -> Void)?

        public init(results: [Result<DocumentWriteResult, SearchError>], settle: (@Sendable () async -> Void)? = nil) {
            self.results = results
            self.settle = settle
        }
    }

    private func chain(_ s: inout State, _ work: @escaping @Sendable () async -> Void) {
        let before = s.last
        s.last = Task {
            await before?.value
            await work()
        }
    }

    /// Records that every node serves write `sequence`: an engine that applies its writes in
    /// order then serves every write before it too.
    public func recordVisible(through sequence: Int64) {
        state.withLock { $0.visibleThrough = max($0.visibleThrough, sequence) }
    }

    /// Whether every node was seen to serve a write at or after `sequence` (see
    /// ``recordVisible(through:)``): a wait for write `sequence` whose own read-back a later
    /// write has changed ends with it.
    public func isVisible(_ sequence: Int64) -> Bool { state.withLock { $0.visibleThrough >= sequence } }

    /// Batches queued by ``submitBatch(_:apply:answer:)`` so far, and the groups they were
    /// applied in.
    public var coalescing: (batches: Int, groups: Int) { state.withLock { ($0.batches, $0.groups) } }

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
