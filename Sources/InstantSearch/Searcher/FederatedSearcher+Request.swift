import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The request a search sends: its targets, and the last one kept while its inputs stay equal.
extension FederatedSearcher {
    /// A source's entry in a request. Every source gets the searcher's parameters, and sends
    /// those of its own that are not at their defaults (the daemon lays a source's over the
    /// request's).
    func target(_ s: Source) -> SearchTarget {
        var own = JSONObject()
        for e in s.effectiveParameters.requestJSON() where Self.defaultParameters[e.key] != e.value {
            own.appendUnchecked(e.key, e.value)
        }
        return SearchTarget(index: s.id.index, name: s.name, params: own.isEmpty ? nil : own, weight: s.weight)
    }

    /// The parameters at their defaults, as a request would send them.
    private static let defaultParameters = SearchParameters().requestJSON()

    /// What a request is made of besides its query and seq: while it stays equal, a search
    /// reuses the last request's targets and encoded parameters (typing changes only the query).
    struct RequestInputs: Equatable {
        struct SourceInputs: Equatable {
            let parameters: SearchParameters
            let name: String
            let weight: Double
            let filterableAttributes: Set<String>?
            /// The filters of each connected state (nil: the state is gone), with its aliases.
            let filters: [Filters?]
            let aliases: [[String: String]]
        }
        let parameters: SearchParameters
        let sources: [SourceInputs]
        let merge: JSONObject?
        let mergeFacets: JSONObject?
        let facetAliases: [String: [String: String]]
        let timeoutMs: Int?
    }

    /// The request for search `seq`.
    func makeRequest(seq: Int) -> SearchRequest {
        let inputs = RequestInputs(
            parameters: parameters,
            sources: sources.map { s in
                .init(
                    parameters: s.parameters, name: s.name, weight: s.weight, filterableAttributes: s.filterableAttributes,
                    filters: s.filterStates.map { $0.state.object?.filters }, aliases: s.filterStates.map(\.aliases))
            },
            merge: merge, mergeFacets: mergeFacets, facetAliases: facetAliases, timeoutMs: timeoutMs)
        if let last = lastRequest, last.inputs == inputs {
            // Made from equal inputs: the same request but for its query, session and seq,
            // with its other members encoded already.
            var request = last.request
            request.query = query ?? ""
            request.session = sequencer.session
            request.seq = seq
            return request
        }
        var aliases: JSONObject?
        if !facetAliases.isEmpty {
            var o = JSONObject()
            for name in facetAliases.keys.sorted() {
                var per = JSONObject()
                for index in facetAliases[name]!.keys.sorted() { per[index] = .string(facetAliases[name]![index]!) }
                o[name] = .object(per)
            }
            aliases = o
        }
        var request = SearchRequest(
            query: query ?? "", targets: sources.map(target), parameters: parameters, timeoutMs: timeoutMs,
            session: sequencer.session, seq: seq, merge: merge, mergeFacets: mergeFacets, facetAliases: aliases)
        request.encodedMembers = request.encodeStableMembers()
        lastRequest = (inputs, request)
        return request
    }
}
