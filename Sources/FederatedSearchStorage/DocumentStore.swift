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
    /// Set (or, with nil, remove) a metadata value, such as the index's settings, as part of
    /// the batch.
    case setMetadata(key: String, value: String?)
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
        try db.execute(
            """
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
        var sequence: Int64 = 0
        try group { group in sequence = try group.apply(batch) }
        return sequence
    }

    /// Group commit: runs `body` in one transaction, in which each ``Group/apply(_:)`` is a
    /// batch of its own (a savepoint: all of it or none of it, with its own sequence number),
    /// then commits and syncs once for all of them. If the commit fails, no batch of the group
    /// is stored and the sequence goes back to where it was.
    public func group(_ body: (inout Group) throws -> Void) throws {
        try db.execute("BEGIN IMMEDIATE")
        let before = sequence
        do {
            var g = Group(store: self)
            try body(&g)
            try setMetadata("sequence", String(sequence))
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            sequence = before
            throw error
        }
    }

    /// The whole group failed: SQLite rolled its transaction back. Nothing of it is stored.
    public struct GroupAborted: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "the group of batches was rolled back: \(reason)" }
    }

    /// The batches of one transaction (see ``DocumentStore/group(_:)``).
    public struct Group {
        fileprivate let store: DocumentStore
        private var savepoints = 0

        fileprivate init(store: DocumentStore) { self.store = store }

        /// Applies one batch inside the group: on error it is rolled back alone and the
        /// error is rethrown; the group's other batches are unaffected. If SQLite lost the
        /// whole transaction (it rolls it back by itself after a full disk, an I/O error or
        /// running out of memory), throws ``GroupAborted``: no batch of the group is stored,
        /// and none may be applied after it.
        public mutating func apply(_ batch: [WriteOperation]) throws -> Int64 {
            savepoints += 1
            let name = "batch\(savepoints)"
            guard store.db.isInTransaction else { throw GroupAborted(reason: "the transaction is gone") }
            try store.db.execute("SAVEPOINT \(name)")
            do {
                try store.write(batch)
                try store.db.execute("RELEASE \(name)")
            } catch {
                guard store.db.isInTransaction else { throw GroupAborted(reason: "\(error)") }
                do {
                    try store.db.execute("ROLLBACK TO \(name)")
                    try store.db.execute("RELEASE \(name)")
                } catch let rollback {
                    throw GroupAborted(reason: "\(error); then \(rollback)")
                }
                throw error
            }
            store.sequence += 1
            return store.sequence
        }
    }

    private func write(_ batch: [WriteOperation]) throws {
        let upsert = try db.prepare(
            "INSERT INTO documents (object_id, body) VALUES (?1, ?2) ON CONFLICT(object_id) DO UPDATE SET body = excluded.body")
        let delete = try db.prepare("DELETE FROM documents WHERE object_id = ?1")
        func put(_ id: String, _ doc: JSONObject) throws {
            try upsert.bind(1, id)
            try upsert.bind(2, JSONWriter.string(.object(doc)))  // what contentHash(of:) hashes
            _ = try upsert.step()
            upsert.reset()
        }
        for op in batch {
            switch op {
            case .upsert(let doc):
                guard case .string(let id)? = doc["objectID"] else {
                    throw StorageError(call: "apply", code: 0, message: "a document without a string objectID")
                }
                try put(id, doc)
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
                try put(id, doc)
            case .setMetadata(let key, let value):
                if let value {
                    try setMetadata(key, value)
                } else {
                    let s = try db.prepare("DELETE FROM meta WHERE key = ?1")
                    try s.bind(1, key)
                    _ = try s.step()
                }
            }
        }
    }

    /// Closes the file; every later call fails (the index is being deleted).
    public func close() { db.close() }

    /// Every document, in first-insertion order.
    public func allDocuments() throws -> [JSONObject] {
        let s = try db.prepare("SELECT body FROM documents ORDER BY rowid")
        var out: [JSONObject] = []
        while try s.step() { out.append(try Self.decode(s.text(0))) }
        return out
    }

    /// Every stored document, in first-insertion order, as columns: each one's rowid (its
    /// place in that order, which an update keeps), the document, its objectID, and the
    /// ``contentHash(of:)`` of its stored text.
    public struct Rows: Sendable {
        public var rowids: [Int64] = []
        public var documents: [JSONObject] = []
        public var objectIDs: [String] = []
        public var hashes: [UInt64] = []

        public var count: Int { rowids.count }
    }

    /// Every document with a string objectID (as the store keeps them all), with its rowid
    /// and hash, in first-insertion order.
    public func allRows() throws -> Rows {
        let s = try db.prepare("SELECT rowid, body FROM documents ORDER BY rowid")
        var out = Rows()
        while try s.step() {
            let text = s.text(1)
            let document = try Self.decode(text)
            guard case .string(let id)? = document["objectID"] else { continue }
            out.rowids.append(s.int64(0))
            out.documents.append(document)
            out.objectIDs.append(id)
            out.hashes.append(ContentHash.of(text))
        }
        return out
    }

    /// The hash of the text this store keeps for `document`: equal to a row's hash (``Rows``)
    /// when the row holds this document (and, but for a chance of about 2^-64, only then).
    public static func contentHash(of document: JSONObject) -> UInt64 {
        ContentHash.of(JSONWriter.bytes(.object(document)))
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
