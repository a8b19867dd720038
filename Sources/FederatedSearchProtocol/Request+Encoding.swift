import FederatedSearchCore

/// The client's side of the protocol: a ``Request`` as the line ``RequestDecoder`` reads back
/// into an equal request. One codec both ways, so a client never builds a request by hand.
extension Request {
    /// The request as a JSON object (`id` first, then `op` and the operation's fields).
    public func json() -> JSONValue {
        var o = JSONObject()
        if let id { o.appendUnchecked("id", RequestID.json(id)) }
        o.appendUnchecked("op", .string(opName))
        switch operation {
        case .search(let search): search.encode(into: &o)
        case .cancel(let target): o.appendUnchecked("target", RequestID.json(target))
        case .ping, .indices, .stats, .reload: break
        case .searchForFacetValues(let f): f.encode(into: &o)
        case .index(let index, let op):
            o.appendUnchecked("index", .string(index))
            op.encode(into: &o)
        }
        return .object(o)
    }

    /// The request as one NDJSON line, newline included.
    public func line() -> [UInt8] {
        var out = JSONWriter.bytes(json())
        out.append(0x0A)
        return out
    }
}

extension SearchRequest {
    /// A search built in code: `rawParams` (what per-index overrides are laid over) is made
    /// from `params`, so the request means on the wire what it means here.
    public init(
        query: String, targets: [SearchTarget]? = nil, parameters: SearchParameters, perIndex: [String: JSONObject] = [:],
        timeoutMs: Int? = nil, session: String? = nil, seq: Int? = nil, merge: JSONObject? = nil,
        mergeFacets: JSONObject? = nil, facetAliases: JSONObject? = nil
    ) {
        self.init(
            query: query, targets: targets, params: parameters, rawParams: parameters.requestJSON(), perIndex: perIndex,
            timeoutMs: timeoutMs, session: session, seq: seq, merge: merge, mergeFacets: mergeFacets,
            facetAliases: facetAliases)
    }

    func encode(into o: inout JSONObject) {
        o.appendUnchecked("query", .string(query))
        if let targets { o.appendUnchecked("indices", .array(targets.map(\.json))) }
        o.appendUnchecked("params", .object(params.requestJSON()))
        if !perIndex.isEmpty {
            var p = JSONObject()
            for name in perIndex.keys.sorted() { p.appendUnchecked(name, .object(perIndex[name]!)) }
            o.appendUnchecked("perIndex", .object(p))
        }
        if let timeoutMs { o.appendUnchecked("timeoutMs", .number(Double(timeoutMs))) }
        if let session { o.appendUnchecked("session", .string(session)) }
        if let seq { o.appendUnchecked("seq", .number(Double(seq))) }
        if let merge { o.appendUnchecked("merge", .object(merge)) }
        if let mergeFacets { o.appendUnchecked("mergeFacets", .object(mergeFacets)) }
        if let facetAliases { o.appendUnchecked("facetAliases", .object(facetAliases)) }
    }
}

extension SearchTarget {
    /// The `indices` entry: the bare name when nothing else is set, else the object form.
    var json: JSONValue {
        guard name != index || params != nil || weight != 1 || timeoutMs != nil else { return .string(index) }
        var o: JSONObject = ["index": .string(index)]
        if name != index { o["as"] = .string(name) }
        if let params { o["params"] = .object(params) }
        if weight != 1 { o["weight"] = .number(weight) }
        if let timeoutMs { o["timeoutMs"] = .number(Double(timeoutMs)) }
        return .object(o)
    }
}

extension FacetValuesRequest {
    func encode(into o: inout JSONObject) {
        o.appendUnchecked("index", .string(index))
        o.appendUnchecked("facetName", .string(facetName))
        o.appendUnchecked("facetQuery", .string(facetQuery))
        o.appendUnchecked("query", .string(query))
        o.appendUnchecked("params", .object(params.requestJSON()))
        o.appendUnchecked("maxFacetHits", .number(Double(maxFacetHits)))
    }
}

extension IndexOperation {
    func encode(into o: inout JSONObject) {
        switch self {
        case .documents(let op, let changes):
            switch op {
            case "deleteDocuments":
                o.appendUnchecked("objectIDs", .array(changes.compactMap {
                    if case .delete(let id) = $0 { return .string(id) }
                    return nil
                }))
            case "clearIndex": break
            default:
                o.appendUnchecked("documents", .array(changes.compactMap {
                    switch $0 {
                    // The wire has no op for an update that never creates (only the HTTP API's
                    // batches make one): it travels as its op's documents.
                    case .upsert(let d), .merge(let d), .mergeExisting(let d): return .object(d)
                    case .delete, .clear: return nil
                    }
                }))
            }
        case .deleteBy(let params):
            // deleteBy takes the filter parameters only.
            let keys: Set<String> = ["filters", "facetFilters", "numericFilters", "tagFilters", "aroundLatLng", "aroundRadius"]
            var filters = JSONObject()
            for e in params.requestJSON() where keys.contains(e.key) { filters.appendUnchecked(e.key, e.value) }
            o.appendUnchecked("params", .object(filters))
        case .setSettings(let settings):
            o.appendUnchecked("settings", .object(settings))
        case .getDocuments(let ids):
            o.appendUnchecked("objectIDs", .array(ids.map { .string($0) }))
        case .getSettings, .deleteIndex: break
        case .createIndex(let settings, let searchable):
            if !settings.isEmpty { o.appendUnchecked("settings", .object(settings)) }
            if let searchable { o.appendUnchecked("searchable", .object(searchable)) }
        }
    }
}
