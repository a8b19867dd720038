#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol
import FederatedSearchStorage
import Dispatch
import Synchronization

/// An embedded index whose documents and settings live in a SQLite store. Searches read an
/// immutable in-memory snapshot; writes are queued and applied one group at a time off the
/// loop (see ``WriteGroup``): committed durably, then a new snapshot is built and published
/// atomically, so readers never wait and always see whole batches.
///
/// Locks: `state` (the writer's) is the only one held while another is taken: a group, a
/// reconfiguration or a merge's swap publishes the snapshot (`current`) and updates
/// `counters` under it. `current`, `counters`, `queued`, `runningMerges` and `saved` are leaves: each
/// is held only for a read or an assignment, never while taking another lock, so there is no
/// order between them to keep. The atomics (`removed`, `writeGeneration`,
/// `settledGeneration`) are read and written without any lock.
package final class DurableIndex: InlineSearchable, FacetValueSearchable, Browsable {
    package let name: String
    /// Where the store lives (removed with the index by `deleteIndex`).
    package let path: String
    /// Everything a writer changes, under one lock held by one group at a time.
    package let state: Mutex<WriterState>
    /// The snapshot searches use; replaced whole after each committed group.
    private let current: Mutex<EmbeddedIndex>
    /// Writes waiting for the writer, in arrival order.
    private let queued = Mutex(WriteQueueState())
    /// The writer runs here: off the loop and off the concurrency pool (a commit waits for
    /// the disk, a rebuild takes a while), at a lower priority than searches. A thread per
    /// index, so that no index's writes wait behind another's rebuild (a settings change, or
    /// a whole rebuild after each write); ended with the index.
    private let writer: BackgroundWorker
    /// Set by `deleteIndex`: later writes are refused.
    private let removed = Atomic<Bool>(false)
    /// The merges of its segments being built, by lane.
    private let runningMerges = Mutex<[MergeLane: SegmentMerge]>([:])
    /// Write groups applied so far: a settle timer armed after one fires only if no other
    /// came since.
    private let writeGeneration = Atomic<Int>(0)
    /// The write group after which writes were found stopped for ``settleAfterMs``: while it
    /// is still the last one, the base lane settles the index (see ``MergePolicy``). A number
    /// rather than a flag, so that a timer that fires as a write lands cannot mark that
    /// newer write as settled.
    private let settledGeneration = Atomic<Int>(-1)
    /// How long after its last write an index counts as at rest, in milliseconds (the
    /// config's `settleAfterMs`, set as it is loaded; 0: never).
    package static let settleAfterMs = Atomic<Int>(DaemonConfig.defaultSettleAfterMs)
    /// What the writer has done, for `stats`.
    package let counters = Mutex(WriteCounters())
    /// Its saved segments (see ``saveSegmentsIfNeeded()``).
    package let segmentFiles: SegmentFiles
    package let saved = Mutex(SavedSegments())
    /// The config's `maxSegmentDocuments`, set as it is loaded: no merge makes a larger segment.
    package static let maxSegmentDocuments = Atomic<Int>(DaemonConfig.defaultMaxSegmentDocuments)
    /// The config's `segmentFileMinDocuments`, set as it is loaded.
    package static let segmentFileMinDocuments = Atomic<Int>(DaemonConfig.defaultSegmentFileMinDocuments)

    /// Counts of the writer's work on one index, and where it stands (read by `stats` on the
    /// loop thread, which must never wait for the state lock a group holds).
    package struct WriteCounters: Sendable {
        package var sequence: Int64 = 0
        /// The last write searchable (its snapshot published).
        package var publishedSequence: Int64 = 0
        package var documents = 0
        package var groups = 0
        package var batches = 0
        package var refused = 0
        package var lastCommitMs = 0.0
        package var lastRebuildMs = 0.0
        /// Background merges of segments completed, and how long the last one took.
        package var merges = 0
        package var lastMergeMs = 0.0
        /// When the last write became searchable (seconds since 1970; nil: none since start).
        package var updatedAt: Double?
        /// How long the snapshot searched now took to build, in seconds.
        package var lastBuildSeconds = 0.0
        /// Why the stored settings could not be applied at start (the index then serves with
        /// its config's settings until a settings change applies), or nil.
        package var settingsProblem: String?
    }

    /// The `stats.writes` entry of the index.
    package func statsJSON() -> JSONValue {
        let queuedCount = queued.withLock { $0.items.count }
        let c = counters.withLock { $0 }
        return .object([
            "seq": .number(Double(c.sequence)), "documents": .number(Double(c.documents)), "queued": .number(Double(queuedCount)),
            "groups": .number(Double(c.groups)), "batches": .number(Double(c.batches)), "refused": .number(Double(c.refused)),
            "lastCommitMs": .number((c.lastCommitMs * 1000).rounded() / 1000),
            "lastRebuildMs": .number((c.lastRebuildMs * 1000).rounded() / 1000),
            "segments": .number(Double(snapshot.segmentCount)), "merges": .number(Double(c.merges)),
            "merging": .bool(runningMerges.withLock { !$0.isEmpty }),
            "mergingDocuments": .number(Double(runningMerges.withLock { $0.values.reduce(0) { $0 + $1.documentCount } })),
            "lastMergeMs": .number((c.lastMergeMs * 1000).rounded() / 1000),
            "settingsProblem": c.settingsProblem.map { .string($0) } ?? .null,
            "segmentFiles": segmentFilesJSON(),
        ])
    }

    /// Writes queued and not yet applied.
    package var pendingCount: Int { queued.withLock { $0.items.count } }

    /// The sequence number of the last write committed and searchable.
    package var publishedSequence: Int64 { counters.withLock { $0.publishedSequence } }

    /// Records where the store stands after a group.
    package func recordPosition(sequence: Int64, documents: Int) {
        counters.withLock {
            $0.sequence = sequence
            $0.documents = documents
        }
    }

    /// The store, the documents, and the settings (the config's, with the overrides that
    /// `setSettings` stored on top).
    package struct WriterState: ~Copyable {
        package let store: DocumentStore
        package var table: DocumentTable
        package var configSettings: JSONObject
        package var overrides: JSONObject
        package var settings: IndexSettings
        /// The text attributes its documents have brought, in order of discovery (see
        /// ``EmbeddedIndex/newTextAttributes(in:settings:known:)``): what it searches when its
        /// settings name no `searchableAttributes`. Stored under ``fieldsKey``.
        package var fields: [String]
        /// Set when a group was stored but its snapshot could not be published: the next
        /// group rebuilds whole from the table rather than update a snapshot that lacks it.
        package var publishedIsStale = false
    }

    private struct WriteQueueState {
        package var items: [PendingWrite] = []
        package var draining = false
    }

    /// The metadata key under which `setSettings` overrides are stored, as JSON.
    package static let overridesKey = "settingsOverrides"
    /// The metadata key of the discovered text attributes (a JSON array of names).
    package static let fieldsKey = "discoveredAttributes"
    /// Where the index came from: "config", or "createIndex" for one created over the socket
    /// (which the daemon reopens at start from the data folder).
    package static let originKey = "origin"

    /// Opens the store at `path`, imports `initialDocuments` the first time only (a restart
    /// neither duplicates nor reverts what was written since), applies stored setting
    /// overrides over `configSettings`, and builds the snapshot.
    package init(
        name: String, configSettings: JSONObject, path: String, origin: String,
        initialDocuments: () throws -> [JSONObject]
    ) throws {
        let store = try DocumentStore(path: path)
        if try store.metadata("initialImport") == nil {
            // One batch with the marker: a crash leaves either both or neither.
            let batch: [WriteOperation] =
                try initialDocuments().map { .upsert($0) } + [
                    .setMetadata(key: Self.originKey, value: origin), .setMetadata(key: "initialImport", value: "done"),
                ]
            try store.group { g in _ = try g.apply(batch) }
        }
        var overrides: JSONObject = [:]
        if let text = try store.metadata(Self.overridesKey), case .object(let o) = try JSONParser.parse(text) {
            overrides = o
        }
        // Settings stored by an earlier version may not be valid now (a limit that came since):
        // the index still opens, with its config's settings, and says why.
        var settings: IndexSettings
        var problem: String?
        do {
            settings = try IndexSettings.decode(Self.merged(configSettings, overrides), path: "\(name).settings")
        } catch {
            settings = try IndexSettings.decode(configSettings, path: "\(name).settings")
            problem = error.message
            Log.error(
                "\(name): its stored settings cannot be applied (\(error.message)); serving with the config's settings until a settings change applies"
            )
        }
        let opened = ContinuousClock.now
        let rows = try store.allRows()
        let sequence = store.sequence
        let storedFields = Self.storedFields(store)
        var fields = storedFields
        let files = SegmentFiles(storePath: path)
        let (opening, names) = try Self.openSaved(name: name, settings: settings, fields: &fields, rows: rows, files: files)
        if fields != storedFields { Self.store(fields: fields, in: store, name: name) }
        let index = opening.index
        let openSeconds = WriteGroup.milliseconds(.now - opened) / 1000
        let fromFiles = opening.servedByArchive.reduce(0, +)
        if fromFiles > 0 {
            Log.info(
                "\(name): opened \(fromFiles) documents from \(opening.segmentOfArchive.count) saved segments and built \(opening.built.count) in \((openSeconds * 100).rounded() / 100) s"
            )
        }
        self.segmentFiles = files
        self.name = name
        self.path = path
        // Linux keeps 15 bytes of a thread's name: "write " and the index name's first 9.
        var short = ""
        for c in name {
            if short.utf8.count + c.utf8.count > 9 { break }
            short.append(c)
        }
        self.writer = BackgroundWorker(name: "write " + short)
        self.state = Mutex(
            WriterState(
                store: store, table: DocumentTable([]), configSettings: configSettings, overrides: overrides, settings: settings,
                fields: fields))
        self.current = Mutex(index)
        recordPosition(sequence: sequence, documents: rows.count)
        // The writer's table by objectID, built as its first job: writes wait for it, searches do not.
        writer.async { self.state.withLock { $0.table = DocumentTable(rows: rows) } }
        counters.withLock {
            $0.publishedSequence = sequence
            $0.lastBuildSeconds = openSeconds
            $0.settingsProblem = problem
        }
        saved.withLock { s in
            for (k, id) in opening.segmentOfArchive {
                s.files[id] = names[k]
                s.sizes[names[k]] = files.bytes([names[k]])
            }
            s.openedFromFiles = fromFiles
            s.openedBuilt = opening.built.count
            s.openSeconds = openSeconds
        }
        if index.updatesInPlace { BackgroundWorker.merger.async { index.prepareForUpdates() } }
        saveSegmentsIfNeeded()
    }

    /// Throws, naming `path`, if `configSettings` with the stored overrides laid over them are
    /// not valid settings (a reload checks before it accepts a config).
    package func checkReconfiguration(_ configSettings: JSONObject, path: String) throws {
        let overrides = state.withLock { $0.overrides }
        _ = try IndexSettings.decode(Self.merged(configSettings, overrides), path: path)
    }

    /// Takes the settings of a reloaded config, in turn with the writes queued before: the
    /// same object (and store) keeps serving, so no write can land in a second copy.
    package func reconfigure(configSettings: JSONObject) {
        let name = self.name
        submit(.reconfigure(configSettings)) { result in
            if case .failure(let e) = result { Log.error("\(name): the reloaded settings were not applied: \(e.message)") }
        }
    }

    /// The origin recorded in a store file, without building anything (nil: not a store).
    package static func origin(ofStoreAt path: String) -> String? {
        guard let store = try? DocumentStore(path: path) else { return nil }
        return try? store.metadata(originKey)
    }

    /// `base` with `overrides` laid over it: a key set there replaces; null removes it.
    package static func merged(_ base: JSONObject, _ overrides: JSONObject) -> JSONObject {
        var out = base
        for e in overrides.entries {
            if case .null = e.value { out[e.key] = nil } else { out[e.key] = e.value }
        }
        return out
    }

    package var snapshot: EmbeddedIndex { current.withLock { $0 } }

    package func publish(_ index: EmbeddedIndex) { current.withLock { $0 = index } }

    /// A snapshot of the table built whole, its documents at their ordinals. `fields` (the
    /// discovered text attributes) first takes those of the table's documents it lacks; with
    /// no `searchableAttributes` in `settings`, the index searches them.
    package static func build(
        name: String, settings: IndexSettings, table: DocumentTable, fields: inout [String]
    ) throws(SearchError) -> EmbeddedIndex {
        fields += EmbeddedIndex.newTextAttributes(in: table.documents, settings: settings, known: fields)
        return try EmbeddedIndex(
            name: name, settings: settings.searching(discovered: fields), documents: table.documents, positions: table.ordinals)
    }

    /// The discovered text attributes stored in `store` (none if it has not stored any yet).
    static func storedFields(_ store: DocumentStore) -> [String] {
        guard let text = try? store.metadata(fieldsKey), case .array(let items)? = try? JSONParser.parse(text) else { return [] }
        return items.compactMap(\.stringValue)
    }

    /// Stores the discovered text attributes (its callers, knowing what is stored, call it
    /// only when the list grew). A failure is logged: the list is found again from the
    /// documents at the next start (what was stored, then what it lacks).
    static func store(fields: [String], in store: DocumentStore, name: String) {
        do {
            try store.setMetadata(fieldsKey, JSONWriter.string(.array(fields.map { .string($0) })))
        } catch {
            Log.error("\(name): the discovered attributes were not stored: \(error)")
        }
    }

    /// Starts the merges the snapshot's merge policy asks for, in each lane that has none
    /// running: built on that lane's worker while the index serves and takes writes, then
    /// swapped in under the writer's lock, less what was deleted from its segments meanwhile.
    package func scheduleMerge() {
        for lane in MergeLane.allCases { scheduleMerge(lane) }
    }

    /// Told the name of each durable index that published a new snapshot after writes or a
    /// settings change (on its writer thread, after the snapshot is published, before the
    /// replies go out), with the documents the writes changed when they are known (nil:
    /// anything may have): the daemon's live subscriptions. Nil: nobody listens.
    package static let published = Mutex<(@Sendable (_ index: String, _ changes: ChangeProbe.Changes?) -> Void)?>(nil)

    /// The indices whose write groups keep their changed documents for ``published`` (those
    /// with live subscriptions on them).
    package static let probesWanted = Mutex(Set<String>())
    /// A write group that changes more documents than this makes no probe (anything may have
    /// changed).
    package static let maxProbedDocuments = 256

    /// Tells ``published`` that this index changed (`changes`: the documents, if known).
    package func announceChange(changes: ChangeProbe.Changes? = nil) {
        if let listener = Self.published.withLock({ $0 }) { listener(name, changes) }
    }

    /// After a write group: the change told, its merges, and a timer that settles the index
    /// once no other write has come for ``settleAfterMs``.
    package func wrote(changes: ChangeProbe.Changes? = nil) {
        announceChange(changes: changes)
        let generation = writeGeneration.add(1, ordering: .acquiringAndReleasing).newValue
        scheduleMerge()
        saveSegmentsIfNeeded()
        let delay = Self.settleAfterMs.load(ordering: .relaxed)
        guard delay > 0 else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { [weak self] in
            // Writes queued for the shared writer but not applied yet are not a rest either.
            guard let self, self.writeGeneration.load(ordering: .acquiring) == generation, self.pendingCount == 0 else { return }
            self.settledGeneration.store(generation, ordering: .releasing)
            self.scheduleMerge()
        }
    }

    private func scheduleMerge(_ lane: MergeLane) {
        guard !isRemoved else { return }
        let planned = snapshot
        let started: SegmentMerge? = runningMerges.withLock { running in
            guard running[lane] == nil else { return nil }
            let other = running.first { $0.key != lane }?.value
            let settling = settledGeneration.load(ordering: .acquiring) == writeGeneration.load(ordering: .acquiring)
            guard
                let merge = planned.plannedMerge(
                    lane, besides: other, settling: settling, maxDocuments: Self.maxSegmentDocuments.load(ordering: .relaxed))
            else { return nil }
            running[lane] = merge
            return merge
        }
        guard let merge = started else { return }
        let worker = lane == .base ? BackgroundWorker.baseMerger : BackgroundWorker.merger
        worker.async {
            let began = ContinuousClock.now
            var built: MergedSegment?
            do {
                built = try planned.build(merge)
            } catch {
                Log.error("\(self.name): a merge of \(merge.documentCount) documents failed: \(error)")
            }
            if let built {
                self.state.withLock { _ in
                    if !self.isRemoved { self.publish(self.snapshot.completing(built)) }
                }
                self.counters.withLock {
                    $0.merges += 1
                    $0.lastMergeMs = WriteGroup.milliseconds(.now - began)
                }
            }
            self.runningMerges.withLock { $0[lane] = nil }
            // A failed merge is planned again after the next write, not at once (it would
            // fail the same way).
            if built != nil {
                self.scheduleMerge()
                self.saveSegmentsIfNeeded()
            }
        }
    }

    package var isRemoved: Bool { removed.load(ordering: .acquiring) }

    deinit { writer.stop() }

    /// Refuses every later write and unlinks the store's files (the writer calls it, holding
    /// the state lock, in turn with the writes).
    package func removeStore(_ store: DocumentStore) {
        removed.store(true, ordering: .releasing)
        store.close()
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        segmentFiles.removeAll()
    }

    package var description: SearchableDescription { snapshot.description }
    package var queryDefaults: JSONObject { snapshot.queryDefaults }

    package func browse(_ query: SearchQuery, after cursor: String?, limit: Int) throws -> BrowsePage {
        try snapshot.browse(query, after: cursor, limit: limit)
    }

    package func search(_ query: SearchQuery) async throws -> SearchResults { try snapshot.searchInline(query) }

    package func searchInline(_ query: SearchQuery) throws -> SearchResults { try snapshot.searchInline(query) }

    package func searchForFacetValues(
        attribute: String, prefix: String, query: SearchQuery, maxValues: Int
    ) throws -> [(value: String, count: Int)] {
        try snapshot.searchForFacetValues(attribute: attribute, prefix: prefix, query: query, maxValues: maxValues)
    }

    package func highlightFacetValue(_ value: String, facetQuery: String, preTag: String, postTag: String) -> String {
        snapshot.highlightFacetValue(value, facetQuery: facetQuery, preTag: preTag, postTag: postTag)
    }

    /// Queues a write (or a read that must see every write queued before it); `done` runs
    /// on the writer once it is durable and visible to searches, or refused.
    package func submit(_ write: IndexWrite, done: @escaping @Sendable (Result<WriteReply, SearchError>) -> Void) {
        let start = queued.withLock { q in
            q.items.append(PendingWrite(write: write, done: done))
            if q.draining { return false }
            q.draining = true
            return true
        }
        if start { writer.async { self.drain() } }
    }

    /// Applies the next group, then queues itself again if more is waiting (a group at a
    /// time, so that writes queued meanwhile join the next group).
    private func drain() {
        let group: [PendingWrite] = queued.withLock { q in
            let group = WriteGroup.take(from: &q.items)
            if group.isEmpty { q.draining = false }
            return group
        }
        if group.isEmpty { return }
        let replies = WriteGroup.apply(group.map(\.write), to: self)
        for (p, r) in zip(group, replies) { p.done(r) }
        writer.async { self.drain() }
    }
}

/// One thing asked of a durable index's writer.
package enum IndexWrite: Sendable {
    /// Whether it only reads (a peer allowed to search may ask it).
    package var onlyReads: Bool {
        switch self {
        case .get, .getSettings: true
        case .documents, .deleteBy, .settings, .replace, .reconfigure, .remove: false
        }
    }

    /// A batch of document changes (atomic).
    case documents([DocumentChange])
    /// Delete the documents passing these filters (atomic).
    case deleteBy(SearchParameters)
    /// Lay these settings over the current ones (null resets a key); reindexes.
    case settings(JSONObject)
    /// These settings in force (over the config's: a key they lack is reset) and these
    /// documents, and no other, in one atomic batch: what moving or copying an index over
    /// this one makes of it. Reindexes.
    case replace(settings: JSONObject, documents: [JSONObject])
    /// Stored documents by id (answered in order with the writes around it).
    case get([String])
    /// The settings in force and the overrides stored over the config's.
    case getSettings
    /// New settings from the config file (a reload): the overrides stay on top; reindexes.
    case reconfigure(JSONObject)
    /// Delete the store (`deleteIndex`); later writes are refused.
    case remove
}

/// The answer to an ``IndexWrite``.
package enum WriteReply: Sendable {
    /// Stored: the batch's sequence number, the index's document count after it, and for
    /// `deleteBy` how many documents its filters matched (and so deleted).
    /// (`documents` nil for a write forwarded to another engine, whose count a cluster gives
    /// only eventually.)
    case written(sequence: Int64, documents: Int?, deleted: Int? = nil)
    case documents([JSONObject?])
    case settings(effective: JSONObject, overrides: JSONObject)
}

package struct PendingWrite: Sendable {
    package let write: IndexWrite
    package let done: @Sendable (Result<WriteReply, SearchError>) -> Void
}
