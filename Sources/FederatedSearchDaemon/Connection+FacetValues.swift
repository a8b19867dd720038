import FederatedSearchCore
import FederatedSearchProtocol

/// The `searchForFacetValues` op: one index's facet values under a query, in a task that
/// lives like a search's: counted against the limits, cancelled with its connection or by
/// `cancel`, waited for by the drain and by a client that half-closed after sending it. The
/// answer comes back through the inbox as the request's last frame.
extension Connection {
    /// Starts it, or queues it as a search would be (`dequeued`: its turn in that queue came).
    func searchFacetValues(key: UInt64, id requestID: String?, request: FacetValuesRequest, dequeued: Bool = false) {
        guard bufferEvent != nil else { return }
        let resolved = Self.facetSource(request, in: loop.catalog, peer: peerIdentity)
        guard case .success(let found) = resolved else {
            machine.rejected(key: key, id: requestID)
            if case .failure(let e) = resolved { write(Frame.error(id: requestID, index: nil, error: e).line(), admitted: true) }
            return
        }
        let waiting = QueuedSearch(id: requestID, names: [request.index], kind: .facetValues(request))
        guard admit(key: key, waiting: waiting, dequeued: dequeued) else { return }
        let searchable = found.searchable
        let timeout = found.timeout
        let inbox: Inbox = loop.inbox
        let connection = id
        let task = Task {
            var frame = Connection.facetHitsFrame(searchable, request: request, id: requestID, timeout: timeout)
            if Task.isCancelled {
                frame = .error(id: requestID, index: nil, error: SearchError(.cancelled, "the request was cancelled"))
            }
            inbox.post(.requestFinished(connection: connection, key: key, id: requestID, lastFrame: frame.line()))
        }
        loop.runningSearchCount += 1
        tasks[key] = RunningSearch(
            task: task, id: requestID, names: [request.index], probes: HeldProbes(), started: .now, onLoop: false)
    }

    /// Runs the facet value search and builds the answer frame.
    static func facetHitsFrame(
        _ searchable: any FacetValueSearchable, request: FacetValuesRequest, id requestID: String?, timeout: Duration
    ) -> Frame {
        let clock = ContinuousClock()
        let start = clock.now
        let query = SearchQuery(text: request.query, parameters: request.params, deadline: start + timeout)
        do {
            let values = try searchable.searchForFacetValues(
                attribute: request.facetName, prefix: request.facetQuery, query: query, maxValues: request.maxFacetHits)
            let elapsed = (clock.now - start).components
            let hits: [JSONValue] = values.map { v in
                ["value": .string(v.value), "highlighted": .string(highlight(v.value, prefix: request.facetQuery)),
                 "count": .number(Double(v.count))]
            }
            return .info(id: requestID, type: "facetHits", payload: [
                "index": .string(request.index), "facetHits": .array(hits), "exhaustiveFacetsCount": true,
                "processingTimeMS": .number(SearchResults.wholeMilliseconds(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)),
            ])
        } catch let e as SearchError {
            return .error(id: requestID, index: nil, error: e)
        } catch {
            return .error(id: requestID, index: nil, error: SearchError(.cancelled, "the request was cancelled"))
        }
    }

    /// The index a facet value search asks, if it exists, the peer may search it and it can
    /// search facet values.
    static func facetSource(
        _ request: FacetValuesRequest, in catalog: Catalog, peer: PeerIdentity?
    ) -> Result<(searchable: any FacetValueSearchable, timeout: Duration), SearchError> {
        guard let entry = catalog.entry(request.index, visibleTo: peer) else {
            return .failure(catalog.unknownIndex(request.index, path: "index", peer: peer))
        }
        guard entry.access.maySearch(peer) else {
            return .failure(SearchError(.forbidden, "index: this peer may not search '\(request.index)'"))
        }
        guard let searchable = entry.searchable as? any FacetValueSearchable else {
            return .failure(SearchError(.invalidField, "index: '\(request.index)' (\(entry.kind)) cannot search facet values"))
        }
        return .success((searchable, entry.defaultTimeout))
    }

    /// Wraps the typed prefix in <em> when the value starts with it (ignoring case).
    static func highlight(_ value: String, prefix: String) -> String {
        guard !prefix.isEmpty, value.lowercased().hasPrefix(prefix.lowercased()), prefix.count <= value.count else {
            return value
        }
        let cut = value.index(value.startIndex, offsetBy: prefix.count)
        return "<em>\(value[..<cut])</em>\(value[cut...])"
    }
}
