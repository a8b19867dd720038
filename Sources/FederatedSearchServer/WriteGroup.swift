import Foundation
import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol
import FederatedSearchStorage

/// Group commit for a durable index: the writes queued while the previous group was being
/// applied go together into one SQLite transaction, each batch a savepoint of its own (applied
/// whole or not at all, with its own sequence number), then one sync, then one update of the
/// snapshot (a segment with the group's documents, or a rebuild; see docs/ENGINE.md). A
/// client that keeps several batches in flight so pays for one update per group, not per
/// batch, and every batch is still acknowledged only once durable and searchable.
package enum WriteGroup {
    /// The most batches and document changes one group takes.
    package static let maxBatches = 64
    package static let maxChanges = 64_000

    /// Takes the next group off the queue: a run of document batches, or a single write that
    /// must see everything before it published (`deleteBy` evaluates its filter on the
    /// snapshot; `get` and `getSettings` read what the writes before them left), or whose
    /// snapshot is built before it is committed (a settings change, a replacement), so that
    /// one that cannot be built is refused alone.
    package static func take(from items: inout [PendingWrite]) -> [PendingWrite] {
        guard let first = items.first else { return [] }
        if isBarrier(first.write) {
            items.removeFirst()
            return [first]
        }
        var count = 0
        var changes = 0
        while count < items.count, count < maxBatches, !isBarrier(items[count].write) {
            let size = changeCount(items[count].write)
            if count > 0 && changes + size > maxChanges { break }
            changes += size
            count += 1
        }
        let group = Array(items[..<count])
        items.removeFirst(count)
        return group
    }

    private static func isBarrier(_ w: IndexWrite) -> Bool {
        switch w {
        case .documents: return false
        case .settings, .replace, .deleteBy, .get, .getSettings, .reconfigure, .remove: return true
        }
    }

    private static func changeCount(_ w: IndexWrite) -> Int {
        if case .documents(let changes) = w { return changes.count }
        if case .replace(_, let documents) = w { return documents.count + 1 }
        return 1
    }

    /// Applies a group; one reply per write, in order.
    package static func apply(_ writes: [IndexWrite], to index: DurableIndex) -> [Result<WriteReply, SearchError>] {
        return index.state.withLock { st -> [Result<WriteReply, SearchError>] in
            if index.isRemoved {
                return writes.map { _ in .failure(SearchError(.unknownIndex, "index: '\(index.name)' was deleted")) }
            }
            if writes.count == 1, case .remove = writes[0] {
                index.removeStore(st.store)
                return [.success(.written(sequence: st.store.sequence, documents: 0))]
            }
            if writes.count == 1, let reply = read(writes[0], st) { return [reply] }
            if writes.count == 1, case .reconfigure(let base) = writes[0] { return [reconfigure(&st, base: base, index: index)] }
            var pending = PendingChanges(count: st.table.count)
            var overrides = st.overrides
            var settings = st.settings
            var fields = st.fields
            var settingsChanged = false
            let configSettings = st.configSettings
            var replies: [Result<WriteReply, SearchError>] = []
            /// A settings change's snapshot and table, built before it is committed.
            var prebuilt: (index: EmbeddedIndex, table: DocumentTable)?
            let started = ContinuousClock.now
            do {
                // A second reference to the table, for reading only, gone before the table changes
                // (held past that, it would make the change copy the whole table).
                let table = st.table
                try st.store.group { g in
                    for w in writes {
                        do {
                            let change = try plan(
                                w, current: { id in pending.document(id, in: table) },
                                configSettings: configSettings, overrides: overrides, index: index)
                            var built: (index: EmbeddedIndex, table: DocumentTable)?
                            if let s = change.settings {
                                // Built first: a change whose index cannot be built is refused, not stored.
                                var next = table
                                for op in pending.operations + change.operations { apply(op, to: &next) }
                                built = (try DurableIndex.build(name: index.name, settings: s, table: next, fields: &fields), next)
                            }
                            let sequence = try g.apply(change.operations)
                            if let built { prebuilt = built }
                            pending.apply(change.operations, table: table)
                            if let s = change.settings {
                                settings = s
                                overrides = change.overrides
                                settingsChanged = true
                            }
                            var deleted: Int?
                            if case .deleteBy = w { deleted = change.operations.count }
                            replies.append(.success(.written(sequence: sequence, documents: pending.count, deleted: deleted)))
                        } catch let e as SearchError {
                            replies.append(.failure(e))
                        } catch let e as DocumentStore.GroupAborted {
                            throw e
                        } catch {
                            Log.error("write to \(index.name) failed: \(error)")
                            replies.append(.failure(SearchError(.internalError, "\(index.name): the batch was not written: \(error)")))
                        }
                    }
                }
            } catch {
                Log.error("commit to \(index.name) failed: \(error)")
                return writes.map { _ in .failure(SearchError(.internalError, "\(index.name): the batch was not written: \(error)")) }
            }
            // The changed documents as they were, for the live subscriptions' change probe.
            let before: [JSONObject]? =
                pending.changed.count <= DurableIndex.maxProbedDocuments && DurableIndex.probesWanted.withLock({ $0.contains(index.name) })
                ? pending.changed.compactMap { st.table[$0] } : nil
            if let prebuilt { st.table = prebuilt.table } else { for op in pending.operations { apply(op, to: &st.table) } }
            st.overrides = overrides
            st.settings = settings
            let storedFields = st.fields.count
            st.fields = fields
            defer { if st.fields.count != storedFields { DurableIndex.store(fields: st.fields, in: st.store, name: index.name) } }
            index.recordPosition(sequence: st.store.sequence, documents: st.table.count)
            let committed = ContinuousClock.now
            let applied = replies.filter { if case .success = $0 { true } else { false } }.count
            index.counters.withLock {
                $0.groups += 1
                $0.batches += applied
                $0.refused += replies.count - applied
                $0.lastCommitMs = milliseconds(committed - started)
            }
            guard applied > 0 else { return replies }
            defer { index.counters.withLock { $0.lastRebuildMs = milliseconds(.now - committed) } }
            var changes: ChangeProbe.Changes?
            do {
                let current = index.snapshot
                var adding: [(position: Int64, document: JSONObject)] = []
                var deleting: [String] = []
                if prebuilt == nil {
                    for id in pending.changed {
                        if let d = st.table[id], let position = st.table.ordinal(of: id) {
                            adding.append((position, d))
                        } else {
                            deleting.append(id)
                        }
                    }
                }
                // A text attribute never seen before joins the discovered ones; an index that
                // searches them is then rebuilt (its attributes' slots change), once per attribute.
                let discovered = EmbeddedIndex.newTextAttributes(in: adding.map(\.document), settings: settings, known: st.fields)
                st.fields += discovered
                let searchedChanged = !discovered.isEmpty && settings.searchableAttributes.isEmpty
                if let prebuilt {
                    index.publish(prebuilt.index)
                } else if !settingsChanged && !pending.cleared && !st.publishedIsStale && !searchedChanged && current.updatesInPlace {
                    // Only what the group changed: a new segment and deletions in the others.
                    index.publish(try current.updated(adding: adding, deleting: deleting))
                    if let before {
                        changes = ChangeProbe.Changes(
                            name: index.name, settings: current.settings, before: before, after: adding.map(\.document))
                    }
                } else {
                    index.publish(try DurableIndex.build(name: index.name, settings: settings, table: st.table, fields: &st.fields))
                }
                let published = ContinuousClock.now
                index.counters.withLock {
                    $0.publishedSequence = st.store.sequence
                    $0.updatedAt = Date().timeIntervalSince1970
                    $0.lastBuildSeconds = milliseconds(published - committed) / 1000
                    if settingsChanged { $0.settingsProblem = nil }
                }
                st.publishedIsStale = false
            } catch {
                // Only a corpus over the engine's limits gets here; the batches are stored.
                st.publishedIsStale = true
                Log.error("\(index.name): stored, but the index could not be rebuilt: \(error)")
                return replies.map { r in
                    guard case .success = r else { return r }
                    return .failure(SearchError(.internalError, "\(index.name): stored, but not searchable: \(error)"))
                }
            }
            index.wrote(changes: changes)
            return replies
        }
    }

    /// Lays the stored overrides over a reloaded config's settings and rebuilds.
    private static func reconfigure(
        _ st: inout DurableIndex.WriterState, base: JSONObject, index: DurableIndex
    ) -> Result<WriteReply, SearchError> {
        do {
            let settings = try IndexSettings.decode(DurableIndex.merged(base, st.overrides), path: "\(index.name).settings")
            let known = st.fields.count
            index.publish(try DurableIndex.build(name: index.name, settings: settings, table: st.table, fields: &st.fields))
            if st.fields.count != known { DurableIndex.store(fields: st.fields, in: st.store, name: index.name) }
            st.configSettings = base
            st.settings = settings
            st.publishedIsStale = false
            index.announceChange()
            return .success(.written(sequence: st.store.sequence, documents: st.table.count))
        } catch {
            return .failure(error)
        }
    }

    /// Answers the reads; nil for a write.
    private static func read(_ w: IndexWrite, _ st: borrowing DurableIndex.WriterState) -> Result<WriteReply, SearchError>? {
        switch w {
        case .get(let ids):
            return .success(.documents(ids.map { st.table[$0] }))
        case .getSettings:
            return .success(.settings(effective: DurableIndex.merged(st.configSettings, st.overrides), overrides: st.overrides))
        case .documents, .deleteBy, .settings, .replace, .reconfigure, .remove:
            return nil
        }
    }

    /// What one write does to the store: document changes with partial updates resolved
    /// against the current documents, and for settings the new overrides and settings.
    private struct Planned {
        package var operations: [WriteOperation] = []
        package var settings: IndexSettings?
        package var overrides: JSONObject = [:]
    }

    /// `current(id)` is the document as the writes before this one left it.
    private static func plan(
        _ w: IndexWrite, current: (String) -> JSONObject?, configSettings: JSONObject, overrides: JSONObject,
        index: DurableIndex
    ) throws -> Planned {
        var planned = Planned()
        switch w {
        case .documents(let changes):
            // What this batch has already done to a document (nil inside: deleted).
            var local: [String: JSONObject?] = [:]
            var cleared = false
            for change in changes {
                switch change {
                case .upsert(let d):
                    planned.operations.append(.upsert(d))
                    if case .string(let id)? = d["objectID"] { local[id] = d }
                case .delete(let id):
                    planned.operations.append(.delete(id))
                    local[id] = .some(nil)
                case .clear:
                    planned.operations.append(.clear)
                    local = [:]
                    cleared = true
                case .merge(let fields), .mergeExisting(let fields):
                    guard case .string(let id)? = fields["objectID"] else { continue }
                    let base: JSONObject? = if let l = local[id] { l } else { cleared ? nil : current(id) }
                    if case .mergeExisting = change, base == nil { continue }
                    var doc = base ?? ["objectID": .string(id)]
                    for e in fields.entries { doc[e.key] = e.value }
                    planned.operations.append(.upsert(doc))
                    local[id] = doc
                }
            }
        case .deleteBy(let parameters):
            planned.operations = try index.snapshot.objectIDs(matching: parameters).map { .delete($0) }
        case .settings(let changes):
            var next = overrides
            for e in changes.entries {
                if case .null = e.value { next[e.key] = nil } else { next[e.key] = e.value }
            }
            planned.settings = try IndexSettings.decode(DurableIndex.merged(configSettings, next), path: "settings")
            planned.overrides = next
            planned.operations = [.setMetadata(key: DurableIndex.overridesKey, value: JSONWriter.string(.object(next)))]
        case .replace(let desired, let documents):
            var next = desired
            for e in configSettings.entries where desired[e.key] == nil { next[e.key] = .null }
            planned.settings = try IndexSettings.decode(DurableIndex.merged(configSettings, next), path: "settings")
            planned.overrides = next
            planned.operations =
                [.clear] + documents.map { .upsert($0) }
                + [.setMetadata(key: DurableIndex.overridesKey, value: JSONWriter.string(.object(next)))]
        case .get, .getSettings, .reconfigure, .remove:
            break
        }
        return planned
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    private static func apply(_ op: WriteOperation, to table: inout DocumentTable) {
        switch op {
        case .upsert(let d):
            if case .string(let id)? = d["objectID"] { table.put(id, d) }
        case .delete(let id): table.remove(id)
        case .clear: table.removeAll()
        case .merge, .setMetadata: break
        }
    }
}

/// What a group's writes have done so far, over the table as it was before the group: the
/// table itself changes only once the group is committed (a copy of it per group would cost
/// as much as the index is large).
private struct PendingChanges {
    /// The operations of the writes applied so far, in order.
    var operations: [WriteOperation] = []
    /// Documents as the group left them (nil: deleted), by objectID.
    var documents: [String: JSONObject?] = [:]
    /// The objectIDs the group upserted or deleted, in first-change order.
    var changed: [String] = []
    /// Whether the group cleared the index (every earlier document is gone).
    var cleared = false
    /// Documents after the group so far.
    var count: Int

    init(count: Int) { self.count = count }

    /// The document as the group has left it so far.
    func document(_ id: String, in table: DocumentTable) -> JSONObject? {
        if let d = documents[id] { return d }
        return cleared ? nil : table[id]
    }

    mutating func apply(_ ops: [WriteOperation], table: DocumentTable) {
        for op in ops {
            operations.append(op)
            switch op {
            case .upsert(let d):
                guard case .string(let id)? = d["objectID"] else { continue }
                if document(id, in: table) == nil { count += 1 }
                note(id)
                documents[id] = .some(d)
            case .delete(let id):
                if document(id, in: table) != nil { count -= 1 }
                note(id)
                documents[id] = .some(nil)
            case .clear:
                cleared = true
                documents = [:]
                changed = []
                count = 0
            case .merge, .setMetadata:
                break
            }
        }
    }

    private mutating func note(_ id: String) {
        if documents[id] == nil { changed.append(id) }
    }
}
