extension Hit {
    /// The hit as Algolia writes it: `objectID`, the attributes, then the underscore fields.
    public func json() -> JSONValue {
        var o = JSONObject()
        o.appendUnchecked("objectID", .string(objectID))
        for e in attributes.entries where e.key != "objectID" { o.appendUnchecked(e.key, e.value) }
        if let highlightResult { o.appendUnchecked("_highlightResult", .object(highlightResult)) }
        if let snippetResult { o.appendUnchecked("_snippetResult", .object(snippetResult)) }
        if let rankingInfo { o.appendUnchecked("_rankingInfo", .object(rankingInfo)) }
        o.appendUnchecked("_rankingScore", .number(rankingScore))
        return .object(o)
    }

    /// Decodes a hit from its JSON form (the inverse of ``json()``).
    public init(json value: JSONValue, path: String) throws(SearchError) {
        guard case .object(let o) = value else {
            throw SearchError(.invalidField, "\(path): expected an object, got \(value.typeName)")
        }
        guard case .string(let id)? = o["objectID"] else {
            throw SearchError(.invalidField, "\(path).objectID: expected a string")
        }
        var attributes = JSONObject()
        for e in o.entries where !e.key.hasPrefix("_") && e.key != "objectID" { attributes.appendUnchecked(e.key, e.value) }
        self.init(
            objectID: id, attributes: attributes, highlightResult: o["_highlightResult"]?.objectValue,
            snippetResult: o["_snippetResult"]?.objectValue, rankingScore: o["_rankingScore"]?.numberValue ?? 0,
            rankingInfo: o["_rankingInfo"]?.objectValue)
    }
}

extension SearchResults {
    /// The results as an Algolia search response object.
    public func json() -> JSONValue {
        var o = JSONObject()
        o.appendUnchecked("hits", .array(hits.map { $0.json() }))
        o.appendUnchecked("nbHits", .number(Double(nbHits)))
        o.appendUnchecked("page", .number(Double(page)))
        o.appendUnchecked("nbPages", .number(Double(nbPages)))
        o.appendUnchecked("hitsPerPage", .number(Double(hitsPerPage)))
        var facetsObject = JSONObject()
        for f in facets {
            var counts = JSONObject()
            for v in f.values { counts.appendUnchecked(v.value, .number(Double(v.count))) }
            facetsObject.appendUnchecked(f.attribute, .object(counts))
        }
        o.appendUnchecked("facets", .object(facetsObject))
        var stats = JSONObject()
        for s in facetsStats {
            stats.appendUnchecked(
                s.attribute,
                ["min": .number(s.min), "max": .number(s.max), "avg": .number(s.avg), "sum": .number(s.sum)])
        }
        o.appendUnchecked("facets_stats", .object(stats))
        o.appendUnchecked("exhaustiveNbHits", .bool(exhaustiveNbHits))
        o.appendUnchecked("processingTimeMS", .number(Self.wholeMilliseconds(processingTimeMS)))
        o.appendUnchecked("processingTimingsMS", ["total": .number(processingTimeMS)])
        o.appendUnchecked("query", .string(query))
        o.appendUnchecked("params", .string(params))
        o.appendUnchecked("index", .string(index))
        return .object(o)
    }

    /// Decodes an Algolia-shaped response (the inverse of ``json()``); `path` names it in errors.
    public init(json value: JSONValue, path: String) throws(SearchError) {
        guard case .object(let o) = value else {
            throw SearchError(.invalidField, "\(path): expected an object, got \(value.typeName)")
        }
        var hits: [Hit] = []
        if case .array(let items)? = o["hits"] {
            for (i, item) in items.enumerated() { hits.append(try Hit(json: item, path: "\(path).hits[\(i)]")) }
        }
        self.init(hits: hits, members: o)
    }

    /// `processingTimeMS` as Algolia's API types it: whole milliseconds (typed clients refuse a
    /// fraction). The exact time goes in `processingTimingsMS.total`.
    public static func wholeMilliseconds(_ ms: Double) -> Double { ms.rounded() }

    /// The processing time of a response object: the exact `processingTimingsMS.total` when
    /// present (fedsearchd's own answers), else `processingTimeMS`.
    static func processingTime(_ o: JSONObject) -> Double {
        o["processingTimingsMS"]?.objectValue?["total"]?.numberValue ?? o["processingTimeMS"]?.numberValue ?? 0
    }

    /// A response of `hits` (decoded already) and the other members of its JSON object `o`
    /// (`nbHits`, `facets`, ...; `hits` itself and unknown members are not read).
    public init(hits: [Hit], members o: JSONObject) {
        var facets: [FacetCounts] = []
        if case .object(let f)? = o["facets"] {
            for e in f.entries {
                let values = (e.value.objectValue ?? JSONObject()).entries.map { (value: $0.key, count: $0.value.intValue ?? 0) }
                facets.append(FacetCounts(attribute: e.key, values: values))
            }
        }
        var stats: [FacetStats] = []
        if case .object(let s)? = o["facets_stats"] {
            for e in s.entries {
                let x = e.value.objectValue ?? JSONObject()
                stats.append(
                    FacetStats(
                        attribute: e.key, min: x["min"]?.numberValue ?? 0, max: x["max"]?.numberValue ?? 0,
                        avg: x["avg"]?.numberValue ?? 0, sum: x["sum"]?.numberValue ?? 0))
            }
        }
        self.init(
            hits: hits, nbHits: o["nbHits"]?.intValue ?? hits.count, page: o["page"]?.intValue ?? 0,
            nbPages: o["nbPages"]?.intValue ?? 0, hitsPerPage: o["hitsPerPage"]?.intValue ?? hits.count,
            facets: facets, facetsStats: stats, exhaustiveNbHits: o["exhaustiveNbHits"]?.boolValue ?? true,
            processingTimeMS: Self.processingTime(o), query: o["query"]?.stringValue ?? "",
            params: o["params"]?.stringValue ?? "", index: o["index"]?.stringValue ?? "")
    }
}
