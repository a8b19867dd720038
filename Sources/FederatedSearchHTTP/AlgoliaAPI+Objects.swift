import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchServer

/// Algolia's read endpoints besides search: objects by id, the index list, settings.
extension AlgoliaAPI {
    /// Runs an index operation; its reply frame's members, or the error.
    func indexOperation(_ index: String, _ operation: IndexOperation, _ x: Exchange) async -> Result<JSONObject, SearchError> {
        let lines = await run(Request(id: nil, operation: .index(index, operation)), x)
        guard let line = lines.last?.bytes else { return .failure(SearchError(.internalError, "no answer")) }
        if FramePayload.type(of: line) == "error" {
            return .failure(FramePayload.error(of: line) ?? SearchError(.internalError, "an unreadable error frame"))
        }
        return FramePayload.object(of: line).map { .success($0) } ?? .failure(SearchError(.internalError, "an unreadable reply"))
    }

    /// `attributesToRetrieve` of an object read: a list, a JSON list or comma-separated text.
    static func attributes(_ value: JSONValue?) -> [String]? {
        switch value {
        case .array(let items)?: return items.compactMap(\.stringValue)
        case .string(let s)?: return AlgoliaParams.typed("attributesToRetrieve", s)?.arrayValue?.compactMap(\.stringValue)
        default: return nil
        }
    }

    /// A stored document with only `attributes` (and `objectID`); all of it for nil or `*`.
    static func retrieve(_ document: JSONObject, _ attributes: [String]?) -> JSONObject {
        guard let attributes, !attributes.contains("*") else { return document }
        var out = JSONObject()
        for e in document where e.key == "objectID" || attributes.contains(e.key) { out[e.key] = e.value }
        return out
    }

    /// `GET /1/indexes/{index}/{objectID}`.
    func getObject(_ index: String, id: String, _ x: Exchange) async -> HTTPResponse {
        let attributes = Self.attributes(AlgoliaParams.form(x.request.query)["attributesToRetrieve"])
        switch await indexOperation(index, .getDocuments([id]), x) {
        case .failure(let e): return .error(e)
        case .success(let reply):
            guard case .array(let results)? = reply["results"], case .object(let document)? = results.first else {
                return .error(404, "ObjectID does not exist", code: .unknownRequest)
            }
            return .json(200, .object(Self.retrieve(document, attributes)))
        }
    }

    /// `POST /1/indexes/*/objects`: objects of several indices, `null` for a missing one.
    func getObjects(_ x: Exchange) async -> HTTPResponse {
        let items: [JSONValue]
        switch requests(x, of: "{indexName, objectID}", limit: WriteDecoder.maxBatch) {
        case .failure(let r): return r
        case .success(let r): items = r.items
        }
        var wanted: [(index: String, id: String, attributes: [String]?)] = []
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item, case .string(let index)? = o["indexName"], case .string(let id)? = o["objectID"] else {
                return .error(SearchError(.invalidField, "requests[\(i)]: expected {\"indexName\": string, \"objectID\": string}"))
            }
            guard x.allows(.search, index: index, keysConfigured: !config.keys.isEmpty) else {
                return .error(403, "this API key may not read index '\(index)'", code: .forbidden)
            }
            wanted.append((index, id, Self.attributes(o["attributesToRetrieve"])))
        }
        // One read per index, in first-seen order.
        var byIndex: [String: [String]] = [:]
        var order: [String] = []
        for w in wanted {
            if byIndex[w.index] == nil { order.append(w.index) }
            byIndex[w.index, default: []].append(w.id)
        }
        var found: [String: [String: JSONObject]] = [:]
        for index in order {
            let ids = byIndex[index]!
            switch await indexOperation(index, .getDocuments(ids), x) {
            case .failure(let e): return .error(e)
            case .success(let reply):
                guard case .array(let results)? = reply["results"] else { continue }
                for (id, r) in zip(ids, results) { if case .object(let d) = r { found[index, default: [:]][id] = d } }
            }
        }
        let results: [JSONValue] = wanted.map { w in
            found[w.index]?[w.id].map { .object(Self.retrieve($0, w.attributes)) } ?? .null
        }
        return .json(200, ["results": .array(results)])
    }

    /// `GET /1/indexes`: the indices this key may list, with the fields Algolia's clients require.
    func listIndices(_ x: Exchange) -> HTTPResponse {
        let keyed = !config.keys.isEmpty
        let items: [JSONValue] = x.core.catalog.entries.compactMap { e in
            guard x.allows(.listIndexes, index: e.id.index, keysConfigured: keyed) else { return nil }
            let durable = e.searchable as? DurableIndex
            let pending = durable?.pendingCount ?? 0
            let counters = durable?.counters.withLock { $0 }
            let files = durable.map { Self.storeSizes($0.path) }
            return [
                "name": .string(e.id.index), "createdAt": .string(startedAt),
                "updatedAt": .string(counters?.updatedAt.map(Self.timestamp) ?? startedAt),
                "entries": .number(Double(e.searchable.description.documentCount ?? 0)),
                "dataSize": .number(Double(files?.data ?? 0)), "fileSize": .number(Double(files?.file ?? 0)),
                "lastBuildTimeS": .number((counters?.lastBuildSeconds ?? 0).rounded(.up)),
                "numberOfPendingTasks": .number(Double(pending)), "pendingTask": .bool(pending > 0),
                "backend": .string(e.kind),
            ]
        }
        return .json(200, ["items": .array(items), "nbPages": 1])
    }

    /// `GET /1/indexes/{index}/settings`: the settings in force.
    func getSettings(_ index: String, _ x: Exchange) async -> HTTPResponse {
        switch await indexOperation(index, .getSettings, x) {
        case .failure(let e): return .error(e)
        case .success(let reply):
            guard case .object(let settings)? = reply["settings"] else { return .error(404, "no settings", code: .unknownIndex) }
            return .json(200, .object(settings))
        }
    }
}
