import Foundation
import FederatedSearchCore

/// Maps Typesense's search answer into `SearchResults`.
///
/// - `found` → `nbHits`; `hits[].document` → hits, `id` → `objectID`;
/// - `hits[].highlight` (or the `highlights` array) → `_highlightResult`, in Algolia's shape,
///   for every searched field the hit has as a string: `value` (the whole field, with the
///   query's `highlightPreTag`/`highlightPostTag`, which the request asked Typesense to use),
///   `matchLevel` (`full` when as many distinct words matched as the query has, `partial`,
///   or `none` with the field's plain value) and `matchedWords` (the matched tokens, lowercased);
/// - `text_match` → `_rankingScore` (see ``score(textMatch:queryWords:)``); without it (a
///   wildcard query) the hit at absolute rank r (from 0) gets `1 / (1 + r / 10)`;
/// - `facet_counts` → `facets` (in the order asked for) and, for numeric fields, `stats` →
///   `facets_stats`.
///
/// A malformed answer is `backend_bad_response` naming the path that failed.
public enum TypesenseResponse {
    /// The results for `answer`, the reply to `request`.
    public static func results(_ answer: JSONValue, request: TypesenseRequest) throws(SearchError) -> SearchResults {
        guard case .object(let root) = answer else { throw bad("", "expected an object, got \(answer.typeName)") }
        guard let found = root["found"]?.intValue, found >= 0 else { throw bad("found", "expected a count") }
        guard case .array(let items)? = root["hits"] else { throw bad("hits", "expected an array") }
        let first = request.page * request.hitsPerPage
        var hits: [Hit] = []
        hits.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            hits.append(try hit(item, at: "hits[\(i)]", rank: first + i, request: request))
        }
        var facets: [FacetCounts] = []
        var stats: [FacetStats] = []
        if let fc = root["facet_counts"] {
            (facets, stats) = try facetCounts(fc, request: request)
        }
        let perPage = request.hitsPerPage
        return SearchResults(
            hits: hits, nbHits: found, page: request.page, nbPages: perPage == 0 ? 0 : (found + perPage - 1) / perPage,
            hitsPerPage: perPage, facets: facets, facetsStats: stats,
            processingTimeMS: root["search_time_ms"]?.numberValue ?? 0)
    }

    /// `_rankingScore` from Typesense's `text_match` (0.24 packs the number of query tokens
    /// matched into its top bits, from bit 59, and the best field's score below): with
    /// t = tokens matched (at most the q words of the query) and f = log2(1 + the lower 59
    /// bits) / 59 in [0, 1), the score is (t + f) / (q + 1). It orders hits as `text_match`
    /// does for one query, and a hit matching every word scores at least q / (q + 1).
    public static func score(textMatch: Double, queryWords: Int) -> Double {
        guard textMatch.isFinite, textMatch > 0 else { return 0 }
        let unit = 576460752303423488.0  // 2^59
        let tokens = (textMatch / unit).rounded(.down)
        let rest = max(0, textMatch - tokens * unit)
        let q = Double(max(1, queryWords))
        let f = min(log2(1 + rest) / 59, 1)
        return min(1, max(0, (min(tokens, q) + f) / (q + 1)))
    }

    private static func hit(_ item: JSONValue, at path: String, rank: Int, request: TypesenseRequest) throws(SearchError) -> Hit {
        guard case .object(let h) = item else { throw bad(path, "expected an object") }
        guard case .object(var document)? = h["document"] else { throw bad("\(path).document", "expected an object") }
        let id: String
        switch document["id"] {
        case .string(let s)?: id = s
        case .number(let n)? where n == n.rounded() && abs(n) < 1e15: id = String(Int(n))
        case let v?: throw bad("\(path).document.id", "expected a string id, got \(v.typeName)")
        case nil: throw bad("\(path).document.id", "missing")
        }
        document["id"] = nil
        var score = 1 / (1 + Double(rank) / 10)
        if let tm = h["text_match"], !request.queryWords.isEmpty {
            guard let n = tm.numberValue else { throw bad("\(path).text_match", "expected a number, got \(tm.typeName)") }
            score = Self.score(textMatch: n, queryWords: request.queryWords.count)
        }
        let highlights = try TypesenseHighlights(h, at: path)
        var result = JSONObject()
        for field in request.highlightFields {
            guard case .string(let plain)? = document[field] else { continue }
            result[field] = highlights.entry(field, plain: plain, queryWords: request.queryWords.count)
        }
        return Hit(objectID: id, attributes: document, highlightResult: result.isEmpty ? nil : result, rankingScore: score)
    }

    private static func facetCounts(
        _ value: JSONValue, request: TypesenseRequest
    ) throws(SearchError) -> ([FacetCounts], [FacetStats]) {
        guard case .array(let list) = value else { throw bad("facet_counts", "expected an array") }
        var counts: [String: FacetCounts] = [:]
        var stats: [String: FacetStats] = [:]
        for (i, entry) in list.enumerated() {
            let at = "facet_counts[\(i)]"
            guard case .object(let o) = entry, case .string(let field)? = o["field_name"] else {
                throw bad("\(at).field_name", "expected a string")
            }
            guard case .array(let values)? = o["counts"] else { throw bad("\(at).counts", "expected an array") }
            var pairs: [(value: String, count: Int)] = []
            for (j, v) in values.enumerated() {
                guard case .object(let c) = v, let n = c["count"]?.intValue else {
                    throw bad("\(at).counts[\(j)].count", "expected a count")
                }
                switch c["value"] {
                case .string(let s)?: pairs.append((s, n))
                case .number(let d)?: pairs.append((TypesenseFilter.number(d), n))
                case .bool(let b)?: pairs.append((b ? "true" : "false", n))
                default: throw bad("\(at).counts[\(j)].value", "expected a value")
                }
            }
            counts[field] = FacetCounts(attribute: field, values: Array(pairs.prefix(request.maxValuesPerFacet)))
            if case .object(let s)? = o["stats"], let lo = s["min"]?.numberValue, let hi = s["max"]?.numberValue {
                stats[field] = FacetStats(
                    attribute: field, min: lo, max: hi, avg: s["avg"]?.numberValue ?? 0, sum: s["sum"]?.numberValue ?? 0)
            }
        }
        return (request.facets.compactMap { counts[$0] }, request.facets.compactMap { stats[$0] })
    }

    static func bad(_ path: String, _ why: String) -> SearchError {
        SearchError(.backendBadResponse, path.isEmpty ? "response: \(why)" : "response.\(path): \(why)")
    }
}
