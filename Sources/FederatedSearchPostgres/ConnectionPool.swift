import Foundation
import FederatedSearchCore
import Synchronization

/// A connection lent by the pool to one query thread.
///
/// `@unchecked Sendable` because `PGConnection` is not thread-safe. Invariant: a connection
/// has exactly one owner at a time, either the pool's idle list (under its mutex) or the one
/// query thread that took it, which gives it back (or drops it) when it is done and never
/// touches it afterwards.
struct PooledConnection: @unchecked Sendable {
    let connection: PGConnection
}

/// A few open connections to one database, reused across queries.
///
/// Queries take an idle connection or open a new one, so a burst of queries is never queued
/// behind the pool; afterwards at most `maxIdle` healthy connections are kept open, the rest
/// are closed. A connection left busy or broken by a failed or abandoned query is closed.
final class ConnectionPool: Sendable {
    private let idle = Mutex<[PooledConnection]>([])
    private let connectionString: String
    /// Connections kept open between queries.
    let maxIdle: Int

    init(connectionString: String, maxIdle: Int) {
        self.connectionString = connectionString
        self.maxIdle = maxIdle
    }

    /// The number of idle connections (for tests).
    var idleCount: Int { idle.withLock { $0.count } }

    /// An idle connection, or a new one (opening it blocks: call from a query thread).
    func take() throws(SearchError) -> PooledConnection {
        if let c = idle.withLock({ $0.popLast() }) { return c }
        return PooledConnection(connection: try PGConnection(connectionString))
    }

    /// Returns a connection after a query; it is closed if unusable or the pool is full.
    func giveBack(_ c: PooledConnection) {
        guard c.connection.isReusable else { return }
        idle.withLock { list in
            if list.count < maxIdle { list.append(c) }
        }
    }
}

/// Runs a query's blocking libpq work on a dedicated thread, off Swift's cooperative pool,
/// and hands the outcome back to the awaiting task.
///
/// Cancelling the task resumes it at once with `CancellationError`; the thread notices within
/// one wait slice, sends `PQcancel` to the server, drains the connection and returns it to
/// the pool. The deadline is handled the same way by the thread, as a `timeout` error.
enum QueryThread {
    /// Runs `body` with a pooled connection on a new thread.
    static func run<T: Sendable>(
        pool: ConnectionPool, deadline: ContinuousClock.Instant?,
        _ body: @escaping @Sendable (_ session: QuerySession) throws -> T
    ) async throws -> T {
        let call = QueryCall<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard call.install(continuation) else { return }
                let thread = Thread {
                    let outcome: Result<T, any Error>
                    do {
                        let lease = try pool.take()
                        outcome = Result { try body(QuerySession(connection: lease.connection, deadline: deadline, call: call)) }
                        pool.giveBack(lease)
                    } catch {
                        outcome = .failure(error)
                    }
                    call.finish(outcome)
                }
                thread.name = "fedsearch-pg"  // Linux keeps at most 15 bytes of a thread name, or none
                thread.start()
            }
        } onCancel: {
            call.cancel()
        }
    }
}

/// What a query's body works with on its thread: the connection and its stop conditions.
struct QuerySession {
    let connection: PGConnection
    let deadline: ContinuousClock.Instant?
    fileprivate let call: any Stoppable

    /// Runs one statement (see ``PGConnection/execute(_:deadline:slice:shouldStop:)``).
    func execute(_ statement: SQLStatement) throws -> PGRows {
        try connection.execute(statement, deadline: deadline) { call.isStopped }
    }
}

private protocol Stoppable: Sendable {
    var isStopped: Bool { get }
}

/// One query's hand-off between its thread and its task: the continuation is resumed exactly
/// once, by the thread's outcome or by cancellation, whichever comes first.
private final class QueryCall<T: Sendable>: Stoppable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var cancelled = false
    }
    private let state = Mutex(State())

    /// Records the continuation; false (having resumed it) when the task was already cancelled.
    func install(_ c: CheckedContinuation<T, any Error>) -> Bool {
        let cancelled = state.withLock { s in
            if !s.cancelled { s.continuation = c }
            return s.cancelled
        }
        if cancelled { c.resume(throwing: CancellationError()) }
        return !cancelled
    }

    var isStopped: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        let c = state.withLock { s in
            s.cancelled = true
            defer { s.continuation = nil }
            return s.continuation
        }
        c?.resume(throwing: CancellationError())
    }

    func finish(_ outcome: Result<T, any Error>) {
        let c = state.withLock { s in
            defer { s.continuation = nil }
            return s.continuation
        }
        c?.resume(with: outcome)
    }
}
