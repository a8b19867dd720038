import FederatedSearchCore

/// The client's side of the protocol: a ``Request`` as the line ``RequestDecoder`` reads back
/// into an equal request. One codec both ways, so a client never builds a request by hand.
extension Request {
    /// The request as a JSON object (`id` first, then `op` and the operation's fields).
    public func json() -> JSONValue {
        if case .subscribe(let search, let interval) = operation {
            // The search's fields, with this op and its interval.
            guard case .object(var o) = Request(id: id, operation: .search(search)).json() else { return .null }
            o["op"] = "subscribe"
            o["minIntervalMs"] = .number(Double(interval))
            return .object(o)
        }
        if case .search = operation {
            // A search is written as text directly (the one encoding of it); its tree is read
            // back from that text.
            return (try? JSONParser.parse(line().dropLast())) ?? .null
        }
        var o = JSONObject()
        if let id { o.appendUnchecked("id", RequestID.json(id)) }
        o.appendUnchecked("op", .string(opName))
        switch operation {
        case .search, .subscribe: break
        case .cancel(let target), .unsubscribe(let target): o.appendUnchecked("target", RequestID.json(target))
        case .watch(let indices): o.appendUnchecked("indices", .array(indices.map(JSONValue.string)))
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
        guard case .search(let search) = operation else {
            var out = JSONWriter.bytes(json())
            out.append(0x0A)
            return out
        }
        // Searches are sent once per keystroke: written straight to text, with no tree.
        var out: [UInt8] = []
        out.reserveCapacity(192 + search.query.utf8.count)
        out.append(UInt8(ascii: "{"))
        if let id {
            out.append(contentsOf: #""id":"#.utf8)
            RequestID.write(id, into: &out)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: #""op":"search""#.utf8)
        search.write(into: &out)
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
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

    /// Appends `,"query":...` and the search's other members: the query, then the members a
    /// searcher sends alike with every keystroke (``encodedMembers`` when given), then the
    /// session and seq.
    func write(into out: inout [UInt8]) {
        out.append(contentsOf: #","query":"#.utf8)
        JSONWriter.writeString(query, into: &out)
        if let encoded = encodedMembers.bytes { out.append(contentsOf: encoded) } else { writeStableMembers(into: &out) }
        if let session {
            out.append(contentsOf: #","session":"#.utf8)
            JSONWriter.writeString(session, into: &out)
        }
        if let seq {
            out.append(contentsOf: #","seq":"#.utf8)
            out.append(contentsOf: String(seq).utf8)
        }
    }

    /// This search's members but the query, session and seq, encoded once, for later searches
    /// that differ from it only in those (``encodedMembers``).
    public func encodeStableMembers() -> EncodedSearchMembers {
        var out: [UInt8] = []
        writeStableMembers(into: &out)
        return EncodedSearchMembers(bytes: out)
    }

    /// Appends `,"indices":...`, `,"params":...` and the other members but the query, session
    /// and seq.
    private func writeStableMembers(into out: inout [UInt8]) {
        func member(_ key: String) {
            out.append(UInt8(ascii: ","))
            JSONWriter.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
        }
        if let targets {
            member("indices")
            out.append(UInt8(ascii: "["))
            for (i, t) in targets.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.write(t.json, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        member("params")
        JSONWriter.write(.object(params.requestJSON()), into: &out)
        if !perIndex.isEmpty {
            member("perIndex")
            out.append(UInt8(ascii: "{"))
            for (i, name) in perIndex.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(name, into: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.write(.object(perIndex[name]!), into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        if let timeoutMs {
            member("timeoutMs")
            out.append(contentsOf: String(timeoutMs).utf8)
        }
        if let merge {
            member("merge")
            JSONWriter.write(.object(merge), into: &out)
        }
        if let mergeFacets {
            member("mergeFacets")
            JSONWriter.write(.object(mergeFacets), into: &out)
        }
        if let facetAliases {
            member("facetAliases")
            JSONWriter.write(.object(facetAliases), into: &out)
        }
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
                o.appendUnchecked(
                    "objectIDs",
                    .array(
                        changes.compactMap {
                            if case .delete(let id) = $0 { return .string(id) }
                            return nil
                        }))
            case "clearIndex": break
            default:
                o.appendUnchecked(
                    "documents",
                    .array(
                        changes.compactMap {
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

/// A search's members but its query, session and seq, as ``Request/line()`` writes them: a
/// searcher that sends the same search with another query at each keystroke encodes them once
/// (``SearchRequest/encodeStableMembers()``) and hands them over with each request
/// (``SearchRequest/encodedMembers``), whose line then takes them as they are.
///
/// It is a cache, not part of a request's value: requests compare equal whatever they hold,
/// and the one who sets it guarantees it encodes the request's own members.
public struct EncodedSearchMembers: Sendable, Equatable {
    /// The encoded members (nil: none given; the line encodes them).
    let bytes: [UInt8]?

    /// None: the line encodes the members itself.
    public init() { bytes = nil }

    init(bytes: [UInt8]) { self.bytes = bytes }

    public static func == (_: Self, _: Self) -> Bool { true }
}
