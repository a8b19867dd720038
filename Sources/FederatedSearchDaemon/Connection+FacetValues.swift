import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchProtocol

/// The `searchForFacetValues` op: one index's facet values under a query, in a task that
/// lives like a search's: counted against the limits, cancelled with its connection or by
/// `cancel`, waited for by the drain and by a client that half-closed after sending it. The
/// answer comes back through the inbox as the request's last frame.
extension Connection {
    /// Starts it, or queues it as a search would be (`dequeued`: its turn in that queue came).
    func searchFacetValues(key: UInt64, id requestID: String?, request: FacetValuesRequest, dequeued: Bool = false) {
        guard socket != nil else { return }
        let resolved = core.facetValueSource(request, peer: peerIdentity)
        guard case .success(let found) = resolved else {
            _ = machine.handle(.ended(key: key, id: requestID))
            if case .failure(let e) = resolved { write(Frame.error(id: requestID, index: nil, error: e).line()) }
            return
        }
        let waiting = QueuedSearch(id: requestID, names: [request.index], kind: .facetValues(request))
        guard admit(key: key, waiting: waiting, dequeued: dequeued) else { return }
        let searchable = found.searchable
        let timeout = found.timeout
        let inbox: Inbox = loop.inbox
        let connection = id
        let task = Task {
            let frame = FacetValueAnswer.frame(searchable, request: request, id: requestID, timeout: timeout)
            inbox.post(.requestFinished(connection: connection, key: key, id: requestID, lastFrame: frame.line()))
        }
        loop.searches.running += 1
        tasks[key] = RunningSearch(
            task: task, id: requestID, names: [request.index], probes: HeldProbes(), started: .now, onLoop: false)
    }
}
