import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchStorage
import Synchronization

/// Saved segments (``SegmentFiles``): a durable index saves its large segments beside its store
/// (those of at least ``segmentFileMinDocuments``), and a start opens the saved segments rather than
/// rebuilding their documents. The store stays the source of truth: a saved segment serves a
/// stored document only while the document is stored as it was built (same hash, same
/// position), and what none serves is built as the index opens; so a missing, stale or
/// corrupt file costs time, never an answer.
extension DurableIndex {
    /// What the saved segments of an index are, for `stats` and the next save.
    package struct SavedSegments: Sendable {
        /// The file of each saved segment the index may still hold.
        var files: [SegmentID: String] = [:]
        /// Each file's size, read as it was saved or opened (not on the loop thread).
        var sizes: [String: Int] = [:]
        /// Whether a save is under way (one at a time).
        var saving = false
        var saves = 0
        var lastSaveMs = 0.0
        /// How the index opened at start.
        var openedFromFiles = 0
        var openedBuilt = 0
        var openSeconds = 0.0
    }

    /// The `stats.writes.<index>.segmentFiles` entry.
    package func segmentFilesJSON() -> JSONValue {
        let s = saved.withLock { $0 }
        let bytes = s.files.values.reduce(0) { $0 + (s.sizes[$1] ?? 0) }
        return .object([
            "files": .number(Double(s.files.count)), "bytes": .number(Double(bytes)),
            "saves": .number(Double(s.saves)), "lastSaveMs": .number((s.lastSaveMs * 1000).rounded() / 1000),
            "openedFromFiles": .number(Double(s.openedFromFiles)), "openedBuilt": .number(Double(s.openedBuilt)),
            "openSeconds": .number((s.openSeconds * 1000).rounded() / 1000),
        ])
    }

    /// What a saved segment is saved with, to know at the next start whether it was built with
    /// the settings then in force: the settings as written (the config's with the stored
    /// overrides) and the discovered text attributes.
    static func segmentMeta(settings: JSONObject, fields: [String]) -> JSONObject {
        ["settings": .object(settings), "fields": .array(fields.map { .string($0) })]
    }

    /// Whether `meta` describes exactly `effective` (the settings an index searches with).
    static func describes(_ meta: JSONObject, _ effective: IndexSettings) -> Bool {
        guard case .object(let written)? = meta["settings"], case .array(let names)? = meta["fields"],
            let settings = try? IndexSettings.decode(written, path: "settings")
        else { return false }
        return settings.searching(discovered: names.compactMap(\.stringValue)) == effective
    }

    /// Opens an index over the store's `rows` from the saved segments built with the settings
    /// it searches with (`settings` with the discovered `fields`), building what they do not
    /// hold. A document none holds may bring a text attribute never seen (a store written by
    /// an earlier version): then `fields` takes it and the index is built whole, since the
    /// attributes' slots change. Files that cannot serve are removed, with a warning when
    /// damaged.
    static func openSaved(
        name: String, settings: IndexSettings, fields: inout [String], rows: DocumentStore.Rows, files: SegmentFiles
    ) throws(SearchError) -> (opened: OpenedIndex, names: [String]) {
        var archives: [ColumnArchive] = []
        var names: [String] = []
        let effective = settings.searching(discovered: fields)
        for n in files.names() {
            do {
                let archive = try files.read(n)
                guard let meta = EmbeddedIndex.archiveMeta(archive), describes(meta, effective) else {
                    Log.info(
                        "\(name): the saved segment \(n) was built with other settings or by another version; its documents are rebuilt")
                    files.remove([n])
                    continue
                }
                archives.append(archive)
                names.append(n)
            } catch {
                Log.warning(
                    "\(name): the saved segment \(files.folder)/\(n) cannot be used (\(error.reason)); its documents are rebuilt from the store"
                )
                files.remove([n])
            }
        }
        let stored = StoredDocuments(documents: rows.documents, objectIDs: rows.objectIDs, positions: rows.rowids, hashes: rows.hashes)
        var opened = try EmbeddedIndex.opening(name: name, settings: effective, archives: archives, stored: stored)
        for (k, n) in names.enumerated() {
            if let reason = opened.unusable[k] {
                Log.warning(
                    "\(name): the saved segment \(files.folder)/\(n) cannot be used (\(reason)); its documents are rebuilt from the store")
            }
            if opened.servedByArchive[k] == 0 { files.remove([n]) }
        }
        let added = EmbeddedIndex.newTextAttributes(in: opened.built.map { rows.documents[$0] }, settings: settings, known: fields)
        fields += added
        if !added.isEmpty && settings.searchableAttributes.isEmpty {
            opened = try EmbeddedIndex.opening(name: name, settings: settings.searching(discovered: fields), archives: [], stored: stored)
            files.remove(names)
            names = []
        }
        return (opened, names)
    }

    /// Saves, in the background, the largest segment that has no file yet and has at least
    /// ``segmentFileMinDocuments`` documents (the base, and the full segments of an index past
    /// `maxSegmentDocuments`), then the next such, one at a time; each save then removes the
    /// files of segments the index no longer holds. Called after each write group and merge,
    /// and once opened.
    package func saveSegmentsIfNeeded() {
        guard !isRemoved else { return }
        let minimum = Self.segmentFileMinDocuments.load(ordering: .relaxed)
        let candidates = snapshot.segmentSizes.filter { $0.builtDocuments >= minimum }
        guard !candidates.isEmpty else { return }
        let start = saved.withLock { s in
            guard !s.saving, candidates.contains(where: { s.files[$0.id] == nil }) else { return false }
            s.saving = true
            return true
        }
        guard start else { return }
        BackgroundWorker.baseMerger.async {
            let more = self.saveLargestUnsaved(minimum: minimum)
            self.saved.withLock { $0.saving = false }
            if more { self.saveSegmentsIfNeeded() }
        }
    }

    /// Saves one segment; returns whether one was saved (another may be waiting).
    private func saveLargestUnsaved(minimum: Int) -> Bool {
        // The snapshot and the settings it was built with, read together: a writer publishes
        // under the state lock.
        let (index, meta): (EmbeddedIndex, JSONObject?) = state.withLock { st in
            let index = self.snapshot
            let written = Self.merged(st.configSettings, st.overrides)
            let meta = Self.segmentMeta(settings: written, fields: st.fields)
            // Not when it serves other settings than those written (stored ones it cannot apply).
            return (index, Self.describes(meta, index.settings) ? meta : nil)
        }
        guard let meta, !isRemoved else { return false }
        let files = saved.withLock { $0.files }
        guard
            let target = index.segmentSizes.filter({ $0.builtDocuments >= minimum && files[$0.id] == nil })
                .max(by: { $0.builtDocuments < $1.builtDocuments }),
            let archive = index.archive(of: target.id, meta: meta, hash: DocumentStore.contentHash(of:))
        else { return false }
        let began = ContinuousClock.now
        let name: String
        do {
            name = try segmentFiles.write(archive)
        } catch {
            Log.error("\(self.name): a segment was not saved (the next start rebuilds it): \(error)")
            return false
        }
        if isRemoved {
            segmentFiles.removeAll()
            return false
        }
        let held = Set(snapshot.segmentIDs)
        let size = segmentFiles.bytes([name])
        let gone: [String] = saved.withLock { s in
            s.files[target.id] = name
            s.sizes[name] = size
            s.saves += 1
            s.lastSaveMs = WriteGroup.milliseconds(.now - began)
            let stale = s.files.filter { !held.contains($0.key) && $0.key != target.id }
            for (k, n) in stale {
                s.files[k] = nil
                s.sizes[n] = nil
            }
            return Array(stale.values)
        }
        segmentFiles.remove(gone)
        Log.debug("\(self.name): saved a segment of \(target.builtDocuments) documents as \(name)")
        return true
    }
}
