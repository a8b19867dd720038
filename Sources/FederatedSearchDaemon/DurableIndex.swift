#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchStorage
import Synchronization

/// An embedded index whose documents live in a SQLite store: searches read an immutable
/// in-memory snapshot; a write batch is committed durably, then a new snapshot is built from
/// the store and published atomically, so readers never wait and always see whole batches.
final class DurableIndex: InlineSearchable, FacetValueSearchable {
    let name: String
    let settings: IndexSettings
    /// The store; its lock also serialises writers (one batch at a time, in order).
    private let store: Mutex<DocumentStore>
    /// The snapshot searches use; replaced whole after each committed batch.
    private let current: Mutex<EmbeddedIndex>
    /// Writes run here, one at a time in the order they arrived, off the loop and off the
    /// concurrency pool (a commit waits for the disk and a rebuild takes a while).
    let writeQueue: DispatchQueue

    /// Opens the store at `path`, imports `initialDocuments` the first time only (a restart
    /// neither duplicates nor reverts what was written since), and builds the snapshot.
    init(name: String, settings: IndexSettings, path: String, initialDocuments: () throws -> [JSONObject]) throws {
        let s = try DocumentStore(path: path)
        if try s.metadata("initialImport") == nil {
            try s.apply(try initialDocuments().map { .upsert($0) })
            try s.setMetadata("initialImport", "done")
        }
        let index = try EmbeddedIndex(name: name, settings: settings, documents: try s.allDocuments())
        self.name = name
        self.settings = settings
        self.store = Mutex(s)
        self.current = Mutex(index)
        self.writeQueue = DispatchQueue(label: "fedsearchd.write.\(name)")
    }

    private var snapshot: EmbeddedIndex { current.withLock { $0 } }

    var description: SearchableDescription { snapshot.description }

    func search(_ query: SearchQuery) async throws -> SearchResults { try snapshot.searchInline(query) }

    func searchInline(_ query: SearchQuery) throws -> SearchResults { try snapshot.searchInline(query) }

    func searchForFacetValues(
        attribute: String, prefix: String, query: SearchQuery, maxValues: Int
    ) throws -> [(value: String, count: Int)] {
        try snapshot.searchForFacetValues(attribute: attribute, prefix: prefix, query: query, maxValues: maxValues)
    }

    /// Commits a batch (durably), then publishes a snapshot that contains it. Blocking: call
    /// it off the loop. Returns the batch's sequence number and the document count after it.
    func apply(_ batch: [WriteOperation]) throws -> (sequence: Int64, documents: Int) {
        try store.withLock { store in
            let sequence = try store.apply(batch)
            let documents = try store.allDocuments()
            let rebuilt = try EmbeddedIndex(name: name, settings: settings, documents: documents)
            current.withLock { $0 = rebuilt }
            return (sequence, documents.count)
        }
    }

    /// The stored documents with these ids (nil where absent).
    func documents(ids: [String]) throws -> [JSONObject?] {
        try store.withLock { try $0.documents(ids: ids) }
    }
}
