import FederatedSearchCore
import FederatedSearchProtocol

/// The `searchForFacetValues` op's answer, with no socket: the index it asks (checked against
/// the catalog and the peer's rights) and the `facetHits` frame.
package enum FacetValueAnswer {
    /// The answer of a facet value search cancelled before it could answer.
    package static func cancelled(id requestID: String?) -> Frame {
        .error(id: requestID, index: nil, error: SearchError(.cancelled, "the request was cancelled"))
    }

    /// Runs the facet value search and builds the answer frame (``cancelled(id:)`` if its
    /// task was cancelled meanwhile).
    package static func frame(
        _ searchable: any FacetValueSearchable, request: FacetValuesRequest, id requestID: String?, timeout: Duration
    ) -> Frame {
        let clock = ContinuousClock()
        let start = clock.now
        let query = SearchQuery(text: request.query, parameters: request.params, deadline: start + timeout)
        do {
            let values = try searchable.searchForFacetValues(
                attribute: request.facetName, prefix: request.facetQuery, query: query, maxValues: request.maxFacetHits)
            if Task.isCancelled { return cancelled(id: requestID) }
            let elapsed = (clock.now - start).components
            let (pre, post) = (request.params.highlightPreTag, request.params.highlightPostTag)
            let hits: [JSONValue] = values.map { v in
                let highlighted = searchable.highlightFacetValue(v.value, facetQuery: request.facetQuery, preTag: pre, postTag: post)
                return ["value": .string(v.value), "highlighted": .string(highlighted), "count": .number(Double(v.count))]
            }
            return .info(
                id: requestID, type: "facetHits",
                payload: [
                    "index": .string(request.index), "facetHits": .array(hits), "exhaustiveFacetsCount": true,
                    "processingTimeMS": .number(
                        SearchResults.wholeMilliseconds(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)),
                ])
        } catch let e as SearchError {
            return .error(id: requestID, index: nil, error: e)
        } catch {
            return cancelled(id: requestID)
        }
    }

    /// The index a facet value search asks, if it exists, the peer may search it and it can
    /// search facet values.
    package static func source(
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
}
