import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import FederatedSearchServer

/// Algolia's search endpoints: one index, several queries at once, facet values.
extension AlgoliaAPI {
    /// The members of a multi-query entry that are not search parameters.
    static let entryMembers: Set<String> = ["indexName", "type", "facet", "facetQuery", "maxFacetHits", "strategy"]

    /// One search of one index as the socket's request, from Algolia's parameters.
    static func searchRequest(_ index: String, _ object: JSONObject, path: String) -> Result<Request, SearchError> {
        let decoded: (query: String, raw: JSONObject, params: SearchParameters)
        do { decoded = try AlgoliaParams.decode(object, path: path, skipping: Self.entryMembers) } catch {
            return .failure(error)
        }
        guard decoded.query.utf8.count <= RequestDecoder.maxQueryBytes else {
            return .failure(SearchError(.invalidField, "\(path).query: longer than \(RequestDecoder.maxQueryBytes) bytes"))
        }
        let request = SearchRequest(
            query: decoded.query, targets: [SearchTarget(index: index)], params: decoded.params, rawParams: decoded.raw,
            merge: ["strategy": "grouped"])
        return .success(Request(id: nil, operation: .search(request)))
    }

    /// The Algolia response of index `index` in the lines the search answered with.
    static func searchAnswer(_ lines: [OutgoingLine], index: String) -> Result<OutgoingLine, SearchError> {
        for line in lines {
            if let results = FramePayload.results(of: line, source: index) { return .success(results) }
            if FramePayload.type(of: line) == "error" {
                return .failure(FramePayload.error(of: line.bytes) ?? SearchError(.internalError, "an unreadable error frame"))
            }
        }
        return .failure(SearchError(.internalError, "the search of '\(index)' answered no results"))
    }

    /// One search of one index: the Algolia response's bytes, or the error.
    func search(_ index: String, _ object: JSONObject, path: String, _ x: Exchange) async -> Result<OutgoingLine, SearchError> {
        switch Self.searchRequest(index, object, path: path) {
        case .failure(let e): return .failure(e)
        case .success(let request):
            let lines = await run(request, x)
            if Task.isCancelled { return .failure(SearchError(.cancelled, "the request was cancelled: its client closed the connection")) }
            return Self.searchAnswer(lines, index: index)
        }
    }

    /// ``search(_:_:path:_:)`` at once on this thread, if its sources are `quick`; nil if not.
    func searchNow(
        _ index: String, _ object: JSONObject, path: String, _ x: Exchange, quick: ([FederatedSource]) -> Bool
    ) -> Result<OutgoingLine, SearchError>? {
        switch Self.searchRequest(index, object, path: path) {
        case .failure(let e): return .failure(e)
        case .success(let given):
            let request: Request
            do { request = try x.restricted(given) } catch { return .failure(error) }
            return x.core.answerNow(request, peer: x.peer, quick: quick).map { Self.searchAnswer($0, index: index) }
        }
    }

    /// The parameters of a one-index search: the body's members, or the query string's.
    func searchObject(_ x: Exchange, fromURL: Bool) -> Result<JSONObject, HTTPResponse> {
        guard fromURL else { return bodyObject(x) }
        var o = AlgoliaParams.form(x.request.query)
        for key in o.keys where key.lowercased().hasPrefix("x-algolia-") { o[key] = nil }
        return .success(o)
    }

    static func response(_ answer: Result<OutgoingLine, SearchError>) -> HTTPResponse {
        switch answer {
        case .success(let line): return .json(200, line)
        case .failure(let e): return .error(e)
        }
    }

    /// `POST /1/indexes/{index}/query` and `GET /1/indexes/{index}?query=...`.
    func searchOne(_ index: String, body x: Exchange, fromURL: Bool) async -> HTTPResponse {
        switch searchObject(x, fromURL: fromURL) {
        case .failure(let r): return r
        case .success(let object): return Self.response(await search(index, object, path: fromURL ? "query string" : "body", x))
        }
    }

    /// ``searchOne(_:body:fromURL:)`` at once on this thread, if the search is `quick`.
    func searchOneNow(_ index: String, _ x: Exchange, fromURL: Bool, quick: ([FederatedSource]) -> Bool) -> HTTPResponse? {
        switch searchObject(x, fromURL: fromURL) {
        case .failure(let r): return r
        case .success(let object):
            return searchNow(index, object, path: fromURL ? "query string" : "body", x, quick: quick).map(Self.response)
        }
    }

    /// A multi-query's entries (checked: each names an index the key may search) and strategy.
    func queries(_ x: Exchange) -> Result<(strategy: String, entries: [(index: String, object: JSONObject, path: String)]), HTTPResponse> {
        let (body, items): (JSONObject, [JSONValue])
        switch requests(x, of: "queries", limit: RequestDecoder.maxTargets) {
        case .failure(let r): return .failure(r)
        case .success(let r): (body, items) = r
        }
        let strategy: String
        switch body["strategy"] {
        case .string(let s)?: strategy = s
        case nil, .null?: strategy = "none"
        case let other?: return .failure(.error(SearchError(.invalidField, "strategy: expected a string, got \(other.typeName)")))
        }
        guard strategy == "none" || strategy == "stopIfEnoughMatches" else {
            return .failure(.error(SearchError(.invalidField, "strategy: expected none or stopIfEnoughMatches, got '\(strategy)'")))
        }
        var entries: [(index: String, object: JSONObject, path: String)] = []
        for (i, item) in items.enumerated() {
            let path = "requests[\(i)]"
            guard case .object(let o) = item else {
                return .failure(.error(SearchError(.invalidField, "\(path): expected an object, got \(item.typeName)")))
            }
            guard case .string(let index)? = o["indexName"], !index.isEmpty else {
                return .failure(.error(SearchError(.missingField, "\(path).indexName: required, the index to search")))
            }
            guard x.allows(.search, index: index, keysConfigured: !config.keys.isEmpty) else {
                return .failure(.error(403, "this API key may not search index '\(index)'", code: .forbidden))
            }
            entries.append((index, o, path))
        }
        return .success((strategy, entries))
    }

    /// `{"results": [...]}` of a multi-query's answers, or the first error.
    static func queriesResponse(_ answers: [Result<OutgoingLine, SearchError>?]) -> HTTPResponse {
        let size = answers.reduce(16) { total, answer in
            if case .success(let line)? = answer { return total + line.count + 1 }
            return total
        }
        var out = LineBuilder(shares: size >= FrameWriter.sharedLineMinimum, capacity: size)
        out.text.append(contentsOf: #"{"results":["#.utf8)
        for (i, answer) in answers.enumerated() {
            switch answer {
            case .success(let line)?:
                if i > 0 { out.text.append(UInt8(ascii: ",")) }
                out.append(line)
            case .failure(let e)?: return .error(e)
            case nil: return .error(SearchError(.internalError, "requests[\(i)]: no answer"))
            }
        }
        out.text.append(contentsOf: "]}".utf8)
        return .json(200, out.finish())
    }

    /// `POST /1/indexes/*/queries`: InstantSearch's request, every query's response in order.
    func multipleQueries(_ x: Exchange) async -> HTTPResponse {
        let (strategy, entries): (String, [(index: String, object: JSONObject, path: String)])
        switch queries(x) {
        case .failure(let r): return r
        case .success(let q): (strategy, entries) = q
        }
        var answers: [Result<OutgoingLine, SearchError>?] = Array(repeating: nil, count: entries.count)
        if strategy == "stopIfEnoughMatches" {
            // In order; once a query has a page's worth of hits the rest are not run.
            var enough = false
            for (i, e) in entries.enumerated() {
                if enough {
                    answers[i] = .success(OutgoingLine(Self.notProcessed(e.index)))
                    continue
                }
                let answer = await entry(e.index, e.object, path: e.path, x)
                if case .success(let line) = answer, Self.hasEnoughHits(line.bytes) { enough = true }
                answers[i] = answer
            }
        } else {
            await withTaskGroup(of: (Int, Result<OutgoingLine, SearchError>).self) { group in
                for (i, e) in entries.enumerated() {
                    group.addTask { (i, await entry(e.index, e.object, path: e.path, x)) }
                }
                for await (i, answer) in group { answers[i] = answer }
            }
        }
        return Self.queriesResponse(answers)
    }

    /// ``multipleQueries(_:)`` at once on this thread when every entry is a search (strategy
    /// `none`) and `quick` accepts all their sources together, checked before any runs; nil
    /// otherwise, with nothing run.
    func multipleQueriesNow(_ x: Exchange, quick: ([FederatedSource]) -> Bool) -> HTTPResponse? {
        let (strategy, entries): (String, [(index: String, object: JSONObject, path: String)])
        switch queries(x) {
        case .failure(let r): return r
        case .success(let q): (strategy, entries) = q
        }
        guard strategy == "none", !entries.contains(where: { $0.object["type"] == "facet" }) else { return nil }
        var requests: [Request] = []
        for e in entries {
            switch Self.searchRequest(e.index, e.object, path: e.path) {
            case .failure(let error): return .error(error)
            case .success(let request):
                do { requests.append(try x.restricted(request)) } catch { return .error(error) }
            }
        }
        guard let answers = x.core.answerNow(requests, peer: x.peer, quick: quick) else { return nil }
        return Self.queriesResponse(zip(entries, answers).map { e, lines in Self.searchAnswer(lines, index: e.index) })
    }

    /// One entry of a multi-query: a search, or a facet value search (`type: "facet"`).
    func entry(_ index: String, _ object: JSONObject, path: String, _ x: Exchange) async -> Result<OutgoingLine, SearchError> {
        guard case .string("facet")? = object["type"] else { return await search(index, object, path: path, x) }
        guard case .string(let facet)? = object["facet"] else {
            return .failure(SearchError(.missingField, "\(path).facet: required for a query of type facet"))
        }
        return await facetSearch(index, facet: facet, object, path: path, x).map(OutgoingLine.init)
    }

    /// A facet value search: the Algolia response's bytes, or the error.
    func facetSearch(
        _ index: String, facet: String, _ object: JSONObject, path: String, _ x: Exchange
    ) async -> Result<[UInt8], SearchError> {
        var all = object
        if case .string(let s)? = object["params"] { for e in AlgoliaParams.form(s) { all[e.key] = e.value } }
        if case .object(let o)? = object["params"] { for e in o { all[e.key] = e.value } }
        var facetQuery = ""
        switch all["facetQuery"] {
        case .string(let q)?: facetQuery = q
        case nil, .null?: break
        case let other?: return .failure(SearchError(.invalidField, "\(path).facetQuery: expected a string, got \(other.typeName)"))
        }
        var maxFacetHits = 10
        if let v = all["maxFacetHits"] {
            guard case .number(let n) = v, n == n.rounded(), (1...100).contains(n) else {
                return .failure(SearchError(.invalidField, "\(path).maxFacetHits: expected an integer from 1 to 100"))
            }
            maxFacetHits = Int(n)
        }
        let decoded: (query: String, raw: JSONObject, params: SearchParameters)
        do { decoded = try AlgoliaParams.decode(object, path: path, skipping: Self.entryMembers) } catch {
            return .failure(error)
        }
        let request = FacetValuesRequest(
            index: index, facetName: facet, facetQuery: facetQuery, query: decoded.query, params: decoded.params,
            maxFacetHits: maxFacetHits)
        let lines = await run(Request(id: nil, operation: .searchForFacetValues(request)), x)
        guard let line = lines.last?.bytes else { return .failure(SearchError(.internalError, "no answer")) }
        if FramePayload.type(of: line) == "error" {
            return .failure(FramePayload.error(of: line) ?? SearchError(.internalError, "an unreadable error frame"))
        }
        guard var payload = FramePayload.object(of: line) else { return .failure(SearchError(.internalError, "no answer")) }
        payload["index"] = nil
        return .success(JSONWriter.bytes(.object(payload)))
    }

    /// `POST /1/indexes/{index}/facets/{facet}/query`.
    func facetValues(_ index: String, facet: String, _ x: Exchange) async -> HTTPResponse {
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o):
            switch await facetSearch(index, facet: facet, o, path: "body", x) {
            case .success(let bytes): return .json(200, bytes)
            case .failure(let e): return .error(e)
            }
        }
    }

    /// The response of a query `stopIfEnoughMatches` did not run.
    static func notProcessed(_ index: String) -> [UInt8] {
        JSONWriter.bytes([
            "hits": [], "nbHits": 0, "page": 0, "nbPages": 0, "hitsPerPage": 0, "processingTimeMS": 0,
            "exhaustiveNbHits": true, "query": "", "params": "", "index": .string(index), "processed": false,
        ])
    }

    /// Whether a response has at least a page of hits (`nbHits >= hitsPerPage`).
    static func hasEnoughHits(_ bytes: [UInt8]) -> Bool {
        guard case .object(let o)? = try? JSONParser.parse(bytes),
            case .number(let hits)? = o["nbHits"], case .number(let perPage)? = o["hitsPerPage"]
        else { return false }
        return hits >= perPage
    }
}
