import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol

/// Index operations (writes, `getDocuments`, `getSettings`) with no socket: what each asks of
/// a durable index's writer, the index it goes to (checked against the catalog and the peer's
/// rights), and the frame of its answer.
package enum IndexRequests {
    /// The frame answering an index operation. `answerByteLimit` (`limits.maxAnswerBytes`)
    /// bounds a `getDocuments` answer as it does a search's: past it, `answer_too_large`.
    package static func replyFrame(
        _ result: Result<WriteReply, SearchError>, index: String, id: String?, answerByteLimit: Int? = nil
    ) -> Frame {
        if let limit = answerByteLimit, case .success(.documents(let documents)) = result,
            let error = tooLarge(documents, limit: limit)
        {
            return .error(id: id, index: nil, error: error)
        }
        switch result {
        case .failure(let e):
            return .error(id: id, index: nil, error: e)
        case .success(.written(let sequence, let documents, let deleted)):
            var payload: JSONObject = ["index": .string(index), "seq": .number(Double(sequence))]
            if let documents { payload["documents"] = .number(Double(documents)) }
            if let deleted { payload["deleted"] = .number(Double(deleted)) }
            return .info(id: id, type: "written", payload: payload)
        case .success(.documents(let documents)):
            return .info(
                id: id, type: "documents",
                payload: [
                    "index": .string(index), "results": .array(documents.map { $0.map { .object($0) } ?? .null }),
                ])
        case .success(.settings(let effective, let overrides)):
            return .info(
                id: id, type: "settings",
                payload: [
                    "index": .string(index), "settings": .object(effective), "overrides": .object(overrides),
                ])
        }
    }

    /// The error of a `getDocuments` answer whose documents pass `limit` bytes in all, found
    /// by encoding them one by one until they do; nil if they fit.
    static func tooLarge(_ documents: [JSONObject?], limit: Int) -> SearchError? {
        var total = 0
        for (i, document) in documents.enumerated() {
            total += document.map { JSONWriter.bytes(.object($0)).count + 1 } ?? 5
            if total > limit {
                return SearchError(
                    .answerTooLarge,
                    "objectIDs: the first \(i + 1) of the \(documents.count) documents asked already pass limits.maxAnswerBytes (\(limit) bytes); ask for fewer at a time"
                )
            }
        }
        return nil
    }

    /// Answers with more documents than this are encoded off the event loop.
    package static let documentsEncodedOnLoop = 64

    /// What an index operation asks of a durable index's writer; nil for creating and deleting
    /// an index, which the loop does.
    package static func write(for operation: IndexOperation) -> IndexWrite? {
        switch operation {
        case .createIndex, .deleteIndex: nil
        case .documents(_, let changes): .documents(changes)
        case .deleteBy(let parameters): .deleteBy(parameters)
        case .setSettings(let settings): .settings(settings)
        case .getDocuments(let ids): .get(ids)
        case .getSettings: .getSettings
        }
    }

    /// `getDocuments` and `getSettings` on an embedded index without a `dataDir`: read from the
    /// index in memory (nothing about reading needs a store). Nil for anything else.
    static func readInMemory(
        _ write: IndexWrite, index name: String, in catalog: Catalog, peer: PeerIdentity?
    ) -> Result<WriteReply, SearchError>? {
        guard write.onlyReads, let entry = catalog.entry(name, visibleTo: peer), entry.access.maySearch(peer),
            let embedded = entry.searchable as? EmbeddedIndex
        else { return nil }
        switch write {
        case .get(let ids): return .success(.documents(embedded.storedDocuments(ids)))
        case .getSettings: return .success(.settings(effective: embedded.configuredSettings, overrides: [:]))
        default: return nil
        }
    }

    /// The durable index an operation goes to, if it exists, takes writes and the peer may
    /// write to it (or read it, for `onlyReads` operations).
    static func durableIndex(
        _ name: String, in catalog: Catalog, peer: PeerIdentity?, forWriting: Bool
    ) -> Result<DurableIndex, SearchError> {
        guard let entry = catalog.entry(name, visibleTo: peer) else {
            return .failure(catalog.unknownIndex(name, path: "index", peer: peer))
        }
        let allowed = forWriting ? entry.access.mayWrite(peer) : entry.access.maySearch(peer)
        guard allowed else {
            return .failure(SearchError(.forbidden, "index: this peer may not \(forWriting ? "write to" : "read") '\(name)'"))
        }
        guard let durable = entry.searchable as? DurableIndex else {
            return .failure(
                SearchError(
                    .notWritable, "index: '\(name)' takes no writes (an embedded index needs a dataDir in the config)"))
        }
        return .success(durable)
    }

    /// Queues `write` in the backend's write order and calls `answer` once the engine has
    /// applied it and serves it: the order moves on to the next write as soon as this one is
    /// applied, and the wait to see it served (``DocumentWritable/waitUntilVisible(_:sequence:)``) runs
    /// beside the later writes.
    package static func forwardInOrder(
        _ write: IndexWrite, to backend: any DocumentWritable, answer: @escaping @Sendable (Result<WriteReply, SearchError>) -> Void
    ) {
        if case .documents(let changes) = write {
            // Batches queued behind the work before them are applied together; the group is
            // read back once, and each batch answered once it is served.
            let apply: @Sendable ([[DocumentChange]]) async -> WriteOrder.GroupOutcome = { batches in
                await applyTogether(batches, to: backend)
            }
            backend.writeOrder.submitBatch(changes, apply: apply) { (result: Result<DocumentWriteResult, SearchError>) in
                answer(result.map { WriteReply.written(sequence: $0.sequence, documents: $0.documents) })
            }
            return
        }
        backend.writeOrder.submit {
            let (reply, readBack) = await forward(write, to: backend)
            if case .success(.written(let sequence, _, _)) = reply, let readBack {
                Task {
                    await backend.waitUntilVisible(readBack, sequence: sequence)
                    answer(reply)
                }
                return
            }
            answer(reply)
        }
    }

    /// Applies batches queued together; the wait before answering them is for the group's
    /// last change to be served (an engine applies its writes in order).
    static func applyTogether(_ batches: [[DocumentChange]], to backend: any DocumentWritable) async -> WriteOrder.GroupOutcome {
        let results = await backend.applyGroup(batches)
        var readBack: (change: DocumentChange, sequence: Int64)?
        for (batch, result) in zip(batches, results) {
            // A clear after the read-back leaves nothing of it to see: the group is not waited for.
            if batch.contains(where: { if case .clear = $0 { true } else { false } }) { readBack = nil }
            guard case .success(let r) = result, let change = r.readBack else { continue }
            readBack = (change, r.sequence)
        }
        guard let (change, sequence) = readBack else { return WriteOrder.GroupOutcome(results: results) }
        let settle: @Sendable () async -> Void = { await backend.waitUntilVisible(change, sequence: sequence) }
        return WriteOrder.GroupOutcome(results: results, settle: settle)
    }

    /// Forwards `write` to a backend that takes writes, and waits for the engine behind it to
    /// acknowledge it; the change to read back before answering, if any. Settings live in that
    /// engine's own schema: they are refused.
    static func forward(
        _ write: IndexWrite, to backend: any DocumentWritable
    ) async -> (reply: Result<WriteReply, SearchError>, readBack: DocumentChange?) {
        do {
            switch write {
            case .documents(let changes):
                let r = try await backend.apply(changes)
                return (.success(.written(sequence: r.sequence, documents: r.documents)), r.readBack)
            case .deleteBy(let parameters):
                let r = try await backend.deleteBy(parameters)
                return (.success(.written(sequence: r.sequence, documents: r.documents, deleted: r.deleted ?? 0)), r.readBack)
            case .get(let ids):
                return (.success(.documents(try await backend.documents(ids))), nil)
            case .settings, .replace, .getSettings, .reconfigure, .remove:
                return (
                    .failure(
                        SearchError(
                            .notWritable, "index: the settings of an index served by another engine live in that engine (its schema)")),
                    nil
                )
            }
        } catch let e as SearchError {
            return (.failure(e), nil)
        } catch {
            return (.failure(SearchError(.backendError, "\(error)")), nil)
        }
    }

    /// For a searchable that takes writes: the sequence number of its last write visible to
    /// searches (a durable index's published batch; a forwarding backend's last acknowledged
    /// one) and how many wait to be; nil for one that takes no writes.
    package static func writeProgress(of searchable: any Searchable) -> (published: Int64, pending: Int)? {
        if let durable = searchable as? DurableIndex { return (durable.publishedSequence, durable.pendingCount) }
        if let backend = searchable as? any DocumentWritable { return (backend.writeOrder.acknowledged, 0) }
        return nil
    }

    /// Where an index operation's answer comes from.
    package enum Route {
        /// Answered already (a read of an index in memory).
        case answered(Result<WriteReply, SearchError>)
        /// To be submitted to this durable index's writer.
        case writer(DurableIndex)
        /// To be forwarded to the engine behind this backend (``forward(_:to:)``).
        case backend(any DocumentWritable)
        /// Refused (unknown index, not writable, not allowed).
        case refused(SearchError)
    }

    /// The route of `write` to index `name` for `peer`: read in memory where that needs no
    /// store, else the durable index (checked for the peer's rights), else the refusal.
    package static func route(_ write: IndexWrite, index name: String, in catalog: Catalog, peer: PeerIdentity?) -> Route {
        if let reply = readInMemory(write, index: name, in: catalog, peer: peer) { return .answered(reply) }
        if let entry = catalog.entry(name, visibleTo: peer), let backend = entry.searchable as? any DocumentWritable {
            let allowed = write.onlyReads ? entry.access.maySearch(peer) : entry.access.mayWrite(peer)
            guard allowed else {
                return .refused(SearchError(.forbidden, "index: this peer may not \(write.onlyReads ? "read" : "write to") '\(name)'"))
            }
            return .backend(backend)
        }
        switch durableIndex(name, in: catalog, peer: peer, forWriting: !write.onlyReads) {
        case .success(let durable): return .writer(durable)
        case .failure(let e): return .refused(e)
        }
    }
}
