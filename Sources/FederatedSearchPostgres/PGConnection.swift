import CLibpq
import FederatedSearchCore
#if canImport(Glibc)
import Glibc
#endif

/// The rows of one statement's answer, copied out of libpq (text format).
public struct PGRows: Sendable, Equatable {
    /// Each column's type OID (`int4` is 23, `float8` 701, ...).
    public var types: [UInt32]
    /// The values by row then column; nil is SQL NULL.
    public var rows: [[String?]]
}

/// Why a running statement was stopped.
enum PGStop: Sendable {
    case cancelled, deadline
}

/// One libpq connection (`PGconn`), in non-blocking mode.
///
/// Not `Sendable`: libpq allows one thread at a time per connection. The pool hands it to one
/// query thread at a time through ``PooledConnection``.
final class PGConnection {
    private let handle: OpaquePointer

    /// Opens a connection (blocking). The message of a failure is libpq's, which never repeats
    /// the password.
    init(_ connectionString: String) throws(SearchError) {
        guard let h = PQconnectdb(connectionString) else {
            throw SearchError(.backendError, "cannot connect to PostgreSQL: out of memory")
        }
        guard PQstatus(h) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(h))
            PQfinish(h)
            throw SearchError(.backendError, "cannot connect to PostgreSQL: \(message)")
        }
        PQsetnonblocking(h, 1)
        handle = h
    }

    deinit { PQfinish(handle) }

    /// How long a cancelled statement may take to end before the connection is abandoned.
    static let drainTime: Duration = .seconds(5)

    /// Whether the connection can serve another query: open and outside any transaction.
    var isReusable: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Runs `statement` and returns its rows. Waits on the socket in slices of `slice` so that
    /// `shouldStop` is noticed promptly; when it answers (or the deadline passes), asks the
    /// server to cancel with `PQcancel` and throws once the connection is drained
    /// (`CancellationError`, or `timeout`).
    func execute(
        _ statement: SQLStatement, deadline: ContinuousClock.Instant?, slice: Duration = .milliseconds(20),
        shouldStop: () -> Bool
    ) throws -> PGRows {
        var stop: PGStop?
        var drainLimit: ContinuousClock.Instant?
        try send(statement)
        var rows: PGRows?
        var failure: SearchError?
        while true {
            while PQisBusy(handle) == 1 {
                if stop == nil {
                    if shouldStop() { stop = .cancelled } else if let d = deadline, ContinuousClock.now >= d { stop = .deadline }
                    if stop != nil {
                        cancelRunningStatement()
                        drainLimit = ContinuousClock.now + Self.drainTime
                    }
                } else if let limit = drainLimit, ContinuousClock.now >= limit {
                    // The server ignores the cancel: give up; the busy connection is not reused.
                    throw stop == .cancelled
                        ? CancellationError() as any Error
                        : SearchError(.timeout, "PostgreSQL did not answer before the deadline")
                }
                try wait(events: Int16(POLLIN), timeout: Self.timeout(stop == nil ? deadline : drainLimit, slice: slice))
                guard PQconsumeInput(handle) == 1 else { throw connectionError("reading the answer") }
            }
            guard let result = PQgetResult(handle) else { break }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK: rows = Self.rows(of: result)
            case PGRES_COMMAND_OK: rows = rows ?? PGRows(types: [], rows: [])
            default: failure = failure ?? Self.error(of: result)
            }
        }
        switch stop {
        case .cancelled: throw CancellationError()
        case .deadline: throw SearchError(.timeout, "PostgreSQL did not answer before the deadline")
        case nil: break
        }
        if let failure { throw failure }
        return rows ?? PGRows(types: [], rows: [])
    }

    /// Sends the statement and its parameters, flushing the whole request.
    private func send(_ statement: SQLStatement) throws(SearchError) {
        // Values go as separate C strings; a NUL inside one (which PostgreSQL text cannot hold)
        // ends that value, it cannot reach the statement.
        let values: [UnsafeMutablePointer<CChar>?] = statement.parameters.map { strdup($0) }
        defer { values.forEach { free($0) } }
        let sent = values.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constants in
                PQsendQueryParams(handle, statement.text, Int32(values.count), nil, constants.baseAddress, nil, nil, 0)
            }
        }
        guard sent == 1 else { throw connectionError("sending the query") }
        while true {
            let flushed = PQflush(handle)
            if flushed == 0 { return }
            guard flushed == 1 else { throw connectionError("sending the query") }
            try wait(events: Int16(POLLOUT | POLLIN), timeout: 5_000)
            guard PQconsumeInput(handle) == 1 else { throw connectionError("sending the query") }
        }
    }

    /// Asks the server to stop the running statement (a separate, short connection).
    private func cancelRunningStatement() {
        guard let cancel = PQgetCancel(handle) else { return }
        var buffer = [CChar](repeating: 0, count: 256)
        _ = PQcancel(cancel, &buffer, Int32(buffer.count))
        PQfreeCancel(cancel)
    }

    /// Waits up to `timeout` milliseconds for something to read.
    func waitReadable(timeout: Int32) throws(SearchError) { try wait(events: Int16(POLLIN), timeout: timeout) }

    /// Reads what the server sent; false when the connection failed.
    func consumeInput() -> Bool { PQconsumeInput(handle) == 1 && PQstatus(handle) == CONNECTION_OK }

    /// The next notification read (`LISTEN`), to be freed with `PQfreemem`; nil: none.
    func nextNotification() -> UnsafeMutablePointer<PGnotify>? { PQnotifies(handle) }

    /// Waits up to `timeout` milliseconds for the socket to be ready.
    private func wait(events: Int16, timeout: Int32) throws(SearchError) {
        var fd = pollfd(fd: PQsocket(handle), events: events, revents: 0)
        guard fd.fd >= 0 else { throw connectionError("waiting for the server") }
        // Interrupted by a signal: the caller's loop waits again.
        do { _ = try systemCall { poll(&fd, 1, timeout) } } catch { throw connectionError("waiting for the server") }
    }

    /// The next wait: one slice, or less when the deadline is nearer.
    static func timeout(_ deadline: ContinuousClock.Instant?, slice: Duration) -> Int32 {
        var limit = slice
        if let deadline { limit = min(limit, max(.zero, deadline - ContinuousClock.now)) }
        let c = limit.components
        return Int32(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000) + 1
    }

    private func connectionError(_ doing: String) -> SearchError {
        SearchError(.backendError, "PostgreSQL connection failed while \(doing): \(Self.text(PQerrorMessage(handle)))")
    }

    private static func error(of result: OpaquePointer) -> SearchError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "?????"
        return SearchError(.backendError, "PostgreSQL error \(state): \(text(PQresultErrorMessage(result)))")
    }

    private static func rows(of result: OpaquePointer) -> PGRows {
        let columns = PQnfields(result)
        let count = PQntuples(result)
        let types = (0..<columns).map { UInt32(PQftype(result, $0)) }
        var rows: [[String?]] = []
        rows.reserveCapacity(Int(count))
        for r in 0..<count {
            rows.append(
                (0..<columns).map { c in
                    PQgetisnull(result, r, c) == 1 ? nil : String(cString: PQgetvalue(result, r, c))
                })
        }
        return PGRows(types: types, rows: rows)
    }

    private static func text(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        let s = String(cString: message)
        var end = s.endIndex
        while end > s.startIndex, s[s.index(before: end)].isWhitespace { end = s.index(before: end) }
        return String(s[..<end])
    }
}
