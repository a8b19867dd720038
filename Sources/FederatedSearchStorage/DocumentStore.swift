import FederatedSearchCore

/// One change in a write batch.
public enum WriteOperation: Sendable, Equatable {
    /// Insert or replace the document with this `objectID`.
    case upsert(JSONObject)
    /// Delete the document with this `objectID` (no error if absent).
    case delete(String)
    /// Delete every document.
    case clear
    /// Set the given attributes of the document with this `objectID`, keeping the others
    /// (creating the document if it does not exist).
    case merge(JSONObject)
}

/// The durable copy of one embedded index: its documents and settings in a SQLite file.
///
/// WAL journal with `synchronous=FULL`: a batch is acknowledged only after its commit is on
/// disk, so an acknowledged batch survives a crash or power loss, and a batch is applied whole
/// or not at all. Each batch gets the next sequence number. Not `Sendable`: one writer at a
/// time owns a store (the daemon serialises writes per index).
public final class DocumentStore {
    private let db: SQLiteDatabase
    /// The sequence number of the last committed batch (0 for a new store).
    public private(set) var sequence: Int64

    /// Opens or creates the store at `path`.
    public init(path: String) throws {
        db = try SQLiteDatabase(path: path)
        try db.execute("""
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=FULL;
            CREATE TABLE IF NOT EXISTS documents (object_id TEXT PRIMARY KEY, body TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            """)
        sequence = 0
        sequence = Int64(try metadata("sequence") ?? "0") ?? 0
    }

    /// Applies a batch atomically and durably; returns its sequence number. On any error
    /// nothing of the batch is applied.
    @discardableResult
    public func apply(_ batch: [WriteOperation]) throws -> Int64 {
        try db.execute("BEGIN IMMEDIATE")
        do {
            let upsert = try db.prepare(
                "INSERT INTO documents (object_id, body) VALUES (?1, ?2) ON CONFLICT(object_id) DO UPDATE SET body = excluded.body")
            let delete = try db.prepare("DELETE FROM documents WHERE object_id = ?1")
            for op in batch {
                switch op {
                case .upsert(let doc):
                    guard case .string(let id)? = doc["objectID"] else {
                        throw StorageError(call: "apply", code: 0, message: "a document without a string objectID")
                    }
                    try upsert.bind(1, id)
                    try upsert.bind(2, JSONWriter.string(.object(doc)))
                    _ = try upsert.step()
                    upsert.reset()
                case .delete(let id):
                    try delete.bind(1, id)
                    _ = try delete.step()
                    delete.reset()
                case .clear:
                    try db.execute("DELETE FROM documents")
                case .merge(let changes):
                    guard case .string(let id)? = changes["objectID"] else {
                        throw StorageError(call: "apply", code: 0, message: "a partial update without a string objectID")
                    }
                    var doc = try documents(ids: [id])[0] ?? ["objectID": .string(id)]
                    for e in changes.entries { doc[e.key] = e.value }
                    try upsert.bind(1, id)
                    try upsert.bind(2, JSONWriter.string(.object(doc)))
                    _ = try upsert.step()
                    upsert.reset()
                }
            }
            let next = sequence + 1
            try setMetadata("sequence", String(next))
            try db.execute("COMMIT")
            sequence = next
            return next
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Every document, in first-insertion order.
    public func allDocuments() throws -> [JSONObject] {
        let s = try db.prepare("SELECT body FROM documents ORDER BY rowid")
        var out: [JSONObject] = []
        while try s.step() { out.append(try Self.decode(s.text(0))) }
        return out
    }

    /// The documents with these ids, nil where absent, in the order asked.
    public func documents(ids: [String]) throws -> [JSONObject?] {
        let s = try db.prepare("SELECT body FROM documents WHERE object_id = ?1")
        return try ids.map { id in
            try s.bind(1, id)
            defer { s.reset() }
            return try s.step() ? try Self.decode(s.text(0)) : nil
        }
    }

    /// The number of documents.
    public func count() throws -> Int {
        let s = try db.prepare("SELECT count(*) FROM documents")
        _ = try s.step()
        return Int(s.int64(0))
    }

    /// A metadata value (settings, import markers), or nil.
    public func metadata(_ key: String) throws -> String? {
        let s = try db.prepare("SELECT value FROM meta WHERE key = ?1")
        try s.bind(1, key)
        return try s.step() ? s.text(0) : nil
    }

    /// Sets a metadata value (inside the current transaction, if any).
    public func setMetadata(_ key: String, _ value: String) throws {
        let s = try db.prepare(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")
        try s.bind(1, key)
        try s.bind(2, value)
        _ = try s.step()
    }

    static func decode(_ text: String) throws -> JSONObject {
        guard case .object(let o) = try JSONParser.parse(text) else {
            throw StorageError(call: "decode", code: 0, message: "a stored document is not a JSON object")
        }
        return o
    }
}

@available(*, unavailable)
extension DocumentStore: Sendable {}
