import FederatedSearchServer
import FederatedSearchEngine
import FederatedSearchCore
import FederatedSearchProtocol

/// Writes, `getDocuments` and `getSettings`: routed by the server core on the loop (index,
/// writability, the peer's rights), then queued on the index's writer; the answer comes back through the inbox
/// once the batch is durable and visible to searches.
extension Connection {
    func perform(_ operation: IndexOperation, on index: String, id requestID: String?) {
        switch operation {
        case .createIndex(let settings, let searchable):
            return createIndex(index, settings: settings, searchable: searchable, id: requestID)
        case .deleteIndex:
            return deleteIndex(index, id: requestID)
        default: break
        }
        let core = self.core
        guard let (write, route) = core.route(operation, index: index, peer: peerIdentity) else { return }
        switch route {
        case .answered(let reply):
            // Many documents read from memory are encoded off the loop, as a writer's are.
            if case .success(.documents(let documents)) = reply, documents.count > IndexRequests.documentsEncodedOnLoop {
                let inbox: Inbox = loop.inbox
                let connection = self.id
                awaitedReplies += 1
                repliesEncodingOffLoop += 1
                updateReading()
                Task.detached {
                    inbox.post(.encodedReply(connection: connection, bytes: core.replyFrame(reply, index: index, id: requestID).line()))
                }
                return
            }
            self.write(core.replyFrame(reply, index: index, id: requestID).line())
        case .refused(let e):
            self.write(Frame.error(id: requestID, index: nil, error: e).line())
        case .writer(let target):
            let inbox: Inbox = loop.inbox
            let connection = self.id
            awaitedReplies += 1
            updateReading()
            // The index's writer keeps requests in arrival order (and so `seq` in the order a
            // client sent its batches).
            target.submit(write) { result in
                let frame = core.replyFrame(result, index: index, id: requestID)
                inbox.post(.reply(connection: connection, bytes: frame.line()))
            }
        case .backend(let backend):
            let inbox: Inbox = loop.inbox
            let connection = self.id
            awaitedReplies += 1
            updateReading()
            // Queued now, as it is read: batches reach the engine in the order they came.
            IndexRequests.forwardInOrder(write, to: backend) { reply in
                let frame = core.replyFrame(reply, index: index, id: requestID)
                inbox.post(.reply(connection: connection, bytes: frame.line()))
            }
        }
    }
}
