import FederatedSearchCore

/// How the `http` backend reads a JSON answer into `SearchResults`, by JSON paths.
///
/// | option | default | meaning |
/// |---|---|---|
/// | `hits` | `hits` | the array of hits in the answer |
/// | `nbHits` | the number of hits | the total number of matches |
/// | `facets` | none | an object `{attribute: {value: count}}` |
/// | `objectID` | `objectID` | each hit's id (a string or an integer) |
/// | `attributes` | the hit itself | the object holding each hit's attributes |
/// | `score` | none | each hit's own score; without it, scores derive from the rank |
/// | `maxScore` | none | the answer's highest score; scores are divided by it (when present) |
/// | `scoreMax` | none | a fixed highest score (used when `maxScore` is absent) |
///
/// Scores are normalised to [0, 1]: `score / max` when a maximum is known, else
/// `score / (1 + score)` for unbounded non-negative scores; without `score`, the hit at
/// absolute rank r (from 0) gets `1 / (1 + r / 10)`.
public struct HTTPResponseMapping: Sendable, Equatable {
    public var hits: JSONPath
    public var nbHits: JSONPath?
    public var facets: JSONPath?
    public var objectID: JSONPath
    public var attributes: JSONPath?
    public var score: JSONPath?
    public var maxScore: JSONPath?
    public var scoreMax: Double?

    public init(_ object: JSONObject, path: String) throws(SearchError) {
        var r = FieldReader(object, path: path)
        hits = try Self.jsonPath("hits", &r) ?? JSONPath(key: "hits")
        nbHits = try Self.jsonPath("nbHits", &r)
        facets = try Self.jsonPath("facets", &r)
        objectID = try Self.jsonPath("objectID", &r) ?? JSONPath(key: "objectID")
        attributes = try Self.jsonPath("attributes", &r)
        score = try Self.jsonPath("score", &r)
        maxScore = try Self.jsonPath("maxScore", &r)
        scoreMax = try r.number("scoreMax")
        if let m = scoreMax, !(m > 0) {
            throw SearchError(.invalidField, "\(r.path(of: "scoreMax")): expected a positive number")
        }
        try r.rejectUnknownKeys()
    }

    private static func jsonPath(_ key: String, _ r: inout FieldReader) throws(SearchError) -> JSONPath? {
        guard let text = try r.string(key) else { return nil }
        do throws(SearchError) { return try JSONPath(text) } catch {
            throw SearchError(.invalidField, "\(r.path(of: key)): \(error.message)")
        }
    }

    /// Maps one answer; an error is `backend_bad_response` naming the path that failed.
    public func results(from answer: JSONValue, query: SearchQuery) throws(SearchError) -> SearchResults {
        func bad(_ path: String, _ why: String) -> SearchError {
            SearchError(.backendBadResponse, "response.\(path): \(why)")
        }
        guard case .array(let items)? = hits.lookup(answer) else {
            let got = hits.lookup(answer).map { "got \($0.typeName)" } ?? "missing"
            throw bad(hits.description, "expected an array of hits, \(got)")
        }
        let p = query.parameters
        let first = p.offset ?? p.page * p.hitsPerPage
        // An absent (or null) maximum, as Elasticsearch sends without hits, falls back to scoreMax.
        var max = scoreMax
        if let maxScore, let m = maxScore.lookup(answer) {
            guard let n = m.numberValue else { throw bad(maxScore.description, "expected a number, got \(m.typeName)") }
            max = n
        }
        var out: [Hit] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            let at = "\(hits.description)[\(i)]"
            let id: String
            switch objectID.lookup(item) {
            case .string(let s)?: id = s
            case .number(let n)? where n == n.rounded() && abs(n) < 1e15: id = String(Int(n))
            case let v?: throw bad(objectID.under(at), "expected a string or an integer id, got \(v.typeName)")
            case nil: throw bad(objectID.under(at), "missing")
            }
            var fields = JSONObject()
            if let attributes {
                guard case .object(let o)? = attributes.lookup(item) else {
                    throw bad(attributes.under(at), "expected an object of attributes")
                }
                fields = o
            } else if case .object(let o) = item {
                fields = o
            }
            var scoreValue = 1 / (1 + Double(first + i) / 10)
            if let score {
                guard let s = score.lookup(item)?.numberValue else { throw bad(score.under(at), "expected a number") }
                scoreValue = Self.normalise(s, max: max)
            }
            fields["objectID"] = nil
            out.append(Hit(objectID: id, attributes: fields, rankingScore: scoreValue))
        }
        var total = items.count
        if let nbHits {
            guard let n = nbHits.lookup(answer)?.intValue, n >= 0 else { throw bad(nbHits.description, "expected a count") }
            total = n
        }
        var facetCounts: [FacetCounts] = []
        if let facets, let f = facets.lookup(answer) {
            guard case .object(let byAttribute) = f else { throw bad(facets.description, "expected an object") }
            for e in byAttribute.entries where p.facets.isEmpty || p.facets.contains("*") || p.facets.contains(e.key) {
                guard case .object(let counts) = e.value else { throw bad("\(facets.description).\(e.key)", "expected an object") }
                var values: [(value: String, count: Int)] = []
                for c in counts.entries {
                    guard let n = c.value.intValue else { throw bad("\(facets.description).\(e.key).\(c.key)", "expected a count") }
                    values.append((c.key, n))
                }
                facetCounts.append(FacetCounts(attribute: e.key, values: Array(values.prefix(p.maxValuesPerFacet))))
            }
        }
        let perPage = p.length ?? p.hitsPerPage
        return SearchResults(
            hits: out, nbHits: total, page: p.page, nbPages: perPage == 0 ? 0 : (total + perPage - 1) / perPage,
            hitsPerPage: perPage, facets: facetCounts, query: query.text,
            params: p.encodedForResponse(query: query.text))
    }

    /// A score in [0, 1]: divided by the maximum when known, else squashed by s / (1 + s).
    static func normalise(_ s: Double, max: Double?) -> Double {
        guard s.isFinite else { return 0 }
        let v: Double
        if let max, max > 0 { v = s / max } else { v = s <= 0 ? 0 : s / (1 + s) }
        return Swift.min(1, Swift.max(0, v))
    }
}
