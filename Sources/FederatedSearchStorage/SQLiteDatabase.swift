import CSQLite
import FederatedSearchCore

/// A failed SQLite call, naming the call and SQLite's message.
public struct StorageError: Error, CustomStringConvertible, Sendable {
    public let call: String
    public let code: Int32
    public let message: String
    public var description: String { "\(call): \(message) (SQLite code \(code))" }
}

/// One SQLite connection. Not `Sendable`: a connection is used by one thread at a time
/// (SQLite's default serialized mode would allow more, but the store gives each writer its
/// own), as SwiftPM's own SQLite wrapper does.
final class SQLiteDatabase {
    // The raw handle; valid from init until deinit.
    private let handle: OpaquePointer

    /// Opens (creating if needed) the database file at `path`.
    init(path: String) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw StorageError(call: "sqlite3_open_v2(\(path))", code: rc, message: message)
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
    }

    private var isClosed = false

    deinit { if !isClosed { sqlite3_close_v2(handle) } }

    /// Closes the file now (before it is deleted: SQLite removes the WAL by name when the
    /// last connection closes, which must not happen later to a new file of the same name).
    /// Every later call fails.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without results (several statements allowed).
    func execute(_ sql: String) throws {
        guard !isClosed else { throw StorageError(call: "sqlite3_exec", code: SQLITE_MISUSE, message: "the store is closed") }
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        guard rc == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw StorageError(call: "sqlite3_exec(\(sql.prefix(40)))", code: rc, message: message)
        }
    }

    /// Whether a transaction is open (SQLite rolls a whole transaction back by itself after
    /// some errors: a full disk, an I/O error, out of memory).
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Prepares one statement.
    func prepare(_ sql: String) throws -> SQLiteStatement {
        guard !isClosed else { throw StorageError(call: "sqlite3_prepare_v2", code: SQLITE_MISUSE, message: "the store is closed") }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw failure("sqlite3_prepare_v2(\(sql.prefix(40)))", rc) }
        return SQLiteStatement(statement: statement, database: self)
    }

    func failure(_ call: String, _ code: Int32) -> StorageError {
        StorageError(call: call, code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}

@available(*, unavailable)
extension SQLiteDatabase: Sendable {}

/// A prepared statement; finalized when released.
final class SQLiteStatement {
    private let statement: OpaquePointer
    private let database: SQLiteDatabase

    init(statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds text to the 1-based parameter `index`; SQLite copies it (SQLITE_TRANSIENT).
    func bind(_ index: Int32, _ text: String) throws {
        let rc = sqlite3_bind_text(statement, index, text, -1, fedsearch_sqlite_transient())
        guard rc == SQLITE_OK else { throw database.failure("sqlite3_bind_text", rc) }
    }

    func bind(_ index: Int32, _ value: Int64) throws {
        let rc = sqlite3_bind_int64(statement, index, value)
        guard rc == SQLITE_OK else { throw database.failure("sqlite3_bind_int64", rc) }
    }

    /// Steps once: true when a row is available, false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw database.failure("sqlite3_step", rc)
    }

    /// Resets for another execution with new bindings.
    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func text(_ column: Int32) -> String {
        guard let p = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: p)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
