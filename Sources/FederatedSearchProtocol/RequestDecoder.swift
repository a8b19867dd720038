import FederatedSearchCore

/// A request line that could not be decoded: the error to send, and the request id if one
/// could be read, so the error frame can echo it.
public struct RequestError: Error, Sendable, Equatable {
    public var id: String?
    public var error: SearchError
    /// The index the request named (its `index` member, when it is a string): a server
    /// answers a request for an index the peer may not know of as if the index did not
    /// exist, whatever else was wrong with it.
    public var index: String?

    public init(id: String?, error: SearchError, index: String? = nil) {
        self.id = id
        self.error = error
        self.index = index
    }
}

/// Decodes one NDJSON request line into a ``Request``.
///
/// Every failure is a coded ``SearchError`` whose message names the field (`params.page`) or
/// the byte position (`invalid_json`), never a crash.
public enum RequestDecoder {
    /// The longest query text accepted, in bytes.
    public static let maxQueryBytes = 512
    /// The ops whose `index` member names an existing index.
    static let indexOps: Set<String> = [
        "addDocuments", "partialUpdateDocuments", "deleteDocuments", "getDocuments", "deleteBy", "setSettings",
        "clearIndex", "getSettings", "deleteIndex", "searchForFacetValues",
    ]

    /// The most entries in a search's `indices` (each is a source searched and answered).
    public static let maxTargets = 100

    public static func decode(_ line: [UInt8]) -> Result<Request, RequestError> {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            let code: ErrorCode = error.reason.contains("UTF-8") ? .invalidUTF8 : .invalidJSON
            return .failure(RequestError(id: nil, error: SearchError(code, "\(error.reason) at byte \(error.offset)")))
        }
        guard case .object(let object) = value else {
            return .failure(
                RequestError(
                    id: nil, error: SearchError(.invalidRequest, "a request must be a JSON object, got \(value.typeName)")))
        }
        return decode(object: object)
    }

    /// Decodes a request already parsed (a transport that builds the request object itself,
    /// as the HTTP API does from a URL and a body).
    public static func decode(object: JSONObject) -> Result<Request, RequestError> {
        var reader = FieldReader(object, readsEachKeyOnce: true)
        let id: String?
        do throws(SearchError) { id = try RequestID.decode(reader.value("id"), path: "id") } catch {
            return .failure(RequestError(id: nil, error: error))
        }
        do {
            return .success(Request(id: id, operation: try decodeOperation(&reader)))
        } catch {
            // Only for the ops that name an index (createIndex names one that need not exist yet).
            let named = object["op"]?.stringValue.map(indexOps.contains) == true ? object["index"]?.stringValue : nil
            return .failure(RequestError(id: id, error: error, index: named))
        }
    }

    static func decodeOperation(_ r: inout FieldReader) throws(SearchError) -> Request.Operation {
        let op = try r.string("op") ?? "search"
        switch op {
        case "search":
            return .search(try decodeSearch(&r))
        case "cancel":
            let target = try RequestID.decode(try r.required("target"), path: "target") ?? ""
            try r.rejectUnknownKeys()
            return .cancel(target: target)
        case "subscribe":
            let interval = try r.int("minIntervalMs", in: 0...3_600_000) ?? defaultMinIntervalMs
            return .subscribe(try decodeSearch(&r), minIntervalMs: interval)
        case "unsubscribe":
            let target = try RequestID.decode(try r.required("target"), path: "target") ?? ""
            try r.rejectUnknownKeys()
            return .unsubscribe(target: target)
        case "watch":
            guard let indices = try r.stringArray("indices") else { throw SearchError(.missingField, "indices: required field is missing") }
            guard !indices.isEmpty, indices.count <= 1000 else { throw SearchError(.invalidField, "indices: name 1 to 1000 indices") }
            try r.rejectUnknownKeys()
            return .watch(indices: indices)
        case "searchForFacetValues":
            let request = FacetValuesRequest(
                index: try r.requiredString("index"), facetName: try r.requiredString("facetName"),
                facetQuery: try r.string("facetQuery") ?? "", query: try r.string("query") ?? "",
                params: try SearchParameters.decode(try r.objectValue("params") ?? [:], path: "params"),
                maxFacetHits: try r.int("maxFacetHits", in: 1...100) ?? 10)
            try r.rejectUnknownKeys()
            return .searchForFacetValues(request)
        case "addDocuments", "partialUpdateDocuments":
            let index = try r.requiredString("index")
            let documents = try WriteDecoder.documents(try r.required("documents"))
            try r.rejectUnknownKeys()
            return .index(index, .documents(op: op, documents.map { op == "addDocuments" ? .upsert($0) : .merge($0) }))
        case "deleteDocuments", "getDocuments":
            let index = try r.requiredString("index")
            guard let ids = try r.stringArray("objectIDs") else {
                throw SearchError(.missingField, "objectIDs: required field is missing")
            }
            guard ids.count <= WriteDecoder.maxBatch else {
                throw SearchError(.invalidField, "objectIDs: \(ids.count) ids; a batch holds at most \(WriteDecoder.maxBatch)")
            }
            try r.rejectUnknownKeys()
            return .index(index, op == "getDocuments" ? .getDocuments(ids) : .documents(op: op, ids.map { .delete($0) }))
        case "deleteBy":
            let index = try r.requiredString("index")
            guard let params = try r.objectValue("params") else {
                throw SearchError(.missingField, "params: required field is missing (the filters of the documents to delete)")
            }
            let parameters = try WriteDecoder.deleteByParameters(params)
            try r.rejectUnknownKeys()
            return .index(index, .deleteBy(parameters))
        case "setSettings", "createIndex":
            let index = try r.requiredString("index")
            let settings = try r.objectValue("settings")
            let searchable = op == "createIndex" ? try r.objectValue("searchable") : nil
            try r.rejectUnknownKeys()
            if op == "createIndex" {
                try WriteDecoder.checkIndexName(index)
                if searchable != nil, settings != nil {
                    throw SearchError(
                        .invalidField, "settings: give settings (an embedded index) or searchable (an index on another backend), not both")
                }
                return .index(index, .createIndex(settings: settings ?? [:], searchable: searchable))
            }
            guard let settings else { throw SearchError(.missingField, "settings: required field is missing") }
            return .index(index, .setSettings(settings))
        case "clearIndex", "getSettings", "deleteIndex":
            let index = try r.requiredString("index")
            try r.rejectUnknownKeys()
            switch op {
            case "clearIndex": return .index(index, .documents(op: op, [.clear]))
            case "getSettings": return .index(index, .getSettings)
            default: return .index(index, .deleteIndex)
            }
        case "ping", "indices", "stats", "reload":
            try r.rejectUnknownKeys()
            switch op {
            case "ping": return .ping
            case "indices": return .indices
            case "stats": return .stats
            default: return .reload
            }
        default:
            throw SearchError(
                .unknownOp,
                "op: unknown operation '\(op)', expected search, cancel, subscribe, unsubscribe, watch, searchForFacetValues, addDocuments, partialUpdateDocuments, deleteDocuments, deleteBy, clearIndex, getDocuments, setSettings, getSettings, createIndex, deleteIndex, ping, indices, stats or reload"
            )
        }
    }

    /// A subscription's `minIntervalMs` when the request leaves it out.
    public static let defaultMinIntervalMs = 100

    static func decodeSearch(_ r: inout FieldReader) throws(SearchError) -> SearchRequest {
        let query = try r.string("query") ?? ""
        guard query.utf8.count <= maxQueryBytes else {
            throw SearchError(.invalidField, "query: longer than \(maxQueryBytes) bytes")
        }
        let targets = try decodeTargets(r.value("indices"))
        let rawParams = try r.objectValue("params") ?? JSONObject()
        let params = try SearchParameters.decode(rawParams, path: "params")
        var perIndex: [String: JSONObject] = [:]
        if let overrides = try r.objectValue("perIndex") {
            for e in overrides.entries {
                guard case .object(let o) = e.value else {
                    throw SearchError(.invalidField, "perIndex.\(e.key): expected an object, got \(e.value.typeName)")
                }
                perIndex[e.key] = o
            }
        }
        let timeoutMs = try r.int("timeoutMs", in: 1...600_000)
        let session = try r.string("session")
        let seq = try r.int("seq", in: 0...Int(Int64.max / 2))
        if session != nil, seq == nil { throw SearchError(.missingField, "seq: required with session") }
        if seq != nil, session == nil { throw SearchError(.missingField, "session: required with seq") }
        let merge = try r.objectValue("merge")
        let mergeFacets = try r.objectValue("mergeFacets")
        let facetAliases = try r.objectValue("facetAliases")
        try r.rejectUnknownKeys()
        let request = SearchRequest(
            query: query, targets: targets, params: params, rawParams: rawParams, perIndex: perIndex,
            timeoutMs: timeoutMs, session: session, seq: seq, merge: merge, mergeFacets: mergeFacets,
            facetAliases: facetAliases)
        // Validate every override now, so a bad one fails the request before any work starts.
        for target in targets ?? [] { _ = try request.parameters(for: target) }
        for name in perIndex.keys.sorted() where targets == nil { _ = try request.parameters(for: name) }
        return request
    }

    /// `indices`: a name, or an array of names and `{"index", "as", "params", "weight", "timeoutMs"}` objects.
    static func decodeTargets(_ value: JSONValue?) throws(SearchError) -> [SearchTarget]? {
        guard let value else { return nil }
        let items: [JSONValue]
        switch value {
        case .string: items = [value]
        case .array(let a): items = a
        default: throw SearchError(.invalidField, "indices: expected an array, got \(value.typeName)")
        }
        guard !items.isEmpty else { throw SearchError(.invalidField, "indices: must not be empty") }
        guard items.count <= maxTargets else {
            throw SearchError(.invalidField, "indices: \(items.count) entries; a search asks at most \(maxTargets)")
        }
        var targets: [SearchTarget] = []
        var names = Set<String>()
        for (i, item) in items.enumerated() {
            let path = "indices[\(i)]"
            let target: SearchTarget
            switch item {
            case .string(let name):
                target = SearchTarget(index: name, path: path)
            case .object(let o):
                var r = FieldReader(o, path: path)
                let index = try r.requiredString("index")
                let name = try r.string("as")
                let params = try r.objectValue("params")
                let weight = try r.number("weight") ?? 1
                guard weight > 0, weight.isFinite else {
                    throw SearchError(.invalidField, "\(path).weight: must be a positive number")
                }
                let timeout = try r.int("timeoutMs", in: 1...600_000)
                try r.rejectUnknownKeys()
                target = SearchTarget(index: index, name: name, params: params, weight: weight, timeoutMs: timeout, path: path)
            default:
                throw SearchError(.invalidField, "\(path): expected an index name or an object, got \(item.typeName)")
            }
            guard names.insert(target.name).inserted else {
                throw SearchError(.invalidField, "\(path): '\(target.name)' is listed twice (give one of them another name with \"as\")")
            }
            targets.append(target)
        }
        return targets
    }
}
