import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchStorage

/// Write ops and `getDocuments`: checked on the loop (index, writability, the peer's write
/// right), then run off the loop; the answer comes back through the inbox once the batch is
/// durable and visible to searches.
extension Connection {
    func write(id requestID: String?, index: String, changes: [DocumentChange]) {
        switch durableIndex(index, forWriting: true) {
        case .failure(let e):
            write(Frame.error(id: requestID, index: nil, error: e).line())
        case .success(let target):
            let inbox: Inbox = loop.inbox
            let connection = self.id
            let batch = changes.map(Connection.operation)
            // The index's serial queue keeps batches in arrival order (and so `seq` in the
            // order a client sent them).
            target.writeQueue.async {
                let frame = Connection.applyFrame(target, batch: batch, index: index, id: requestID)
                inbox.post(.frame(connection: connection, key: 0, bytes: frame.line()))
            }
        }
    }

    func getDocuments(id requestID: String?, index: String, objectIDs: [String]) {
        switch durableIndex(index, forWriting: false) {
        case .failure(let e):
            write(Frame.error(id: requestID, index: nil, error: e).line())
        case .success(let target):
            let inbox: Inbox = loop.inbox
            let connection = self.id
            target.writeQueue.async {
                let frame = Connection.documentsFrame(target, ids: objectIDs, index: index, id: requestID)
                inbox.post(.frame(connection: connection, key: 0, bytes: frame.line()))
            }
        }
    }

    static func operation(_ change: DocumentChange) -> WriteOperation {
        switch change {
        case .upsert(let d): return .upsert(d)
        case .delete(let id): return .delete(id)
        case .clear: return .clear
        case .merge(let d): return .merge(d)
        }
    }

    static func applyFrame(_ target: DurableIndex, batch: [WriteOperation], index: String, id: String?) -> Frame {
        do {
            let result = try target.apply(batch)
            return .info(id: id, type: "written", payload: [
                "index": .string(index), "seq": .number(Double(result.sequence)),
                "documents": .number(Double(result.documents)),
            ])
        } catch {
            Log.error("write to \(index) failed: \(error)", [("REQUEST_ID", id ?? "-")])
            return .error(id: id, index: nil, error: SearchError(.internalError, "\(index): the batch was not written: \(error)"))
        }
    }

    static func documentsFrame(_ target: DurableIndex, ids: [String], index: String, id: String?) -> Frame {
        do {
            let documents = try target.documents(ids: ids)
            return .info(id: id, type: "documents", payload: [
                "index": .string(index), "results": .array(documents.map { $0.map { .object($0) } ?? .null }),
            ])
        } catch {
            return .error(id: id, index: nil, error: SearchError(.internalError, "\(index): \(error)"))
        }
    }

    private func durableIndex(_ name: String, forWriting: Bool) -> Result<DurableIndex, SearchError> {
        guard let entry = loop.catalog.entry(name) else {
            return .failure(SearchError(.unknownIndex, "index: no index named '\(name)'"))
        }
        let allowed = forWriting ? entry.access.mayWrite(peerIdentity) : entry.access.maySearch(peerIdentity)
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
