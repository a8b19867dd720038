import FederatedSearchEngine
import FederatedSearchCore
import FederatedSearchProtocol

/// Writes, `getDocuments` and `getSettings`: checked on the loop (index, writability, the
/// peer's rights), then queued on the index's writer; the answer comes back through the inbox
/// once the batch is durable and visible to searches.
extension Connection {
    func perform(_ operation: IndexOperation, on index: String, id requestID: String?) {
        switch operation {
        case .createIndex(let settings):
            return createIndex(index, settings: settings, id: requestID)
        case .deleteIndex:
            return deleteIndex(index, id: requestID)
        default: break
        }
        guard let write = Self.indexWrite(for: operation) else { return }
        if let reply = Self.readInMemory(write, index: index, in: loop.catalog, peer: peerIdentity) {
            self.write(Connection.replyFrame(reply, index: index, id: requestID).line())
            return
        }
        switch Self.durableIndex(index, in: loop.catalog, peer: peerIdentity, forWriting: !write.onlyReads) {
        case .failure(let e):
            self.write(Frame.error(id: requestID, index: nil, error: e).line())
        case .success(let target):
            let inbox: Inbox = loop.inbox
            let connection = self.id
            awaitedReplies += 1
            updateReading()
            // The index's writer keeps requests in arrival order (and so `seq` in the order a
            // client sent its batches).
            target.submit(write) { result in
                let frame = Connection.replyFrame(result, index: index, id: requestID)
                inbox.post(.reply(connection: connection, bytes: frame.line()))
            }
        }
    }

    static func replyFrame(_ result: Result<WriteReply, SearchError>, index: String, id: String?) -> Frame {
        switch result {
        case .failure(let e):
            return .error(id: id, index: nil, error: e)
        case .success(.written(let sequence, let documents, let deleted)):
            var payload: JSONObject = [
                "index": .string(index), "seq": .number(Double(sequence)), "documents": .number(Double(documents)),
            ]
            if let deleted { payload["deleted"] = .number(Double(deleted)) }
            return .info(id: id, type: "written", payload: payload)
        case .success(.documents(let documents)):
            return .info(id: id, type: "documents", payload: [
                "index": .string(index), "results": .array(documents.map { $0.map { .object($0) } ?? .null }),
            ])
        case .success(.settings(let effective, let overrides)):
            return .info(id: id, type: "settings", payload: [
                "index": .string(index), "settings": .object(effective), "overrides": .object(overrides),
            ])
        }
    }

    /// What an index operation asks of a durable index's writer; nil for creating and deleting
    /// an index, which the loop does.
    static func indexWrite(for operation: IndexOperation) -> IndexWrite? {
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
            return .failure(SearchError(
                .notWritable, "index: '\(name)' takes no writes (an embedded index needs a dataDir in the config)"))
        }
        return .success(durable)
    }
}
