#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchDaemon
import FederatedSearchServer

/// `fedsearchd-faults`: the real daemon with extra backend kinds for fault injection, used only
/// by the integration tests (these kinds are not shipped to users).
///
/// Kind `test.fault`, options:
/// - `delayMs` (default 0): wait this long (cancellably) before answering;
/// - `mode`: `ok` (default), `fail` (throws `backend_error`), `hang` (ignores cancellation and
///   never answers within the test's lifetime);
/// - `hits` (default 3): how many hits to return, each with `_rankingScore` `score` (default 0.5);
///   or `scores`: one hit per listed score, in that order; `page`/`hitsPerPage` slice them;
/// - `facets`: facet counts to report for the requested facets (`{"brand": {"HP": 3}}`).
struct FaultSearchable: Searchable {
    let name: String
    let delay: Duration
    let mode: String
    let hitCount: Int
    let score: Double
    /// Explicit per-hit scores (hit i gets scores[i]); overrides `hits` and `score`.
    let scores: [Double]?
    /// Facet counts to report: attribute → value → count.
    let facets: JSONObject

    var description: SearchableDescription {
        SearchableDescription(kind: "test.fault", documentCount: hitCount, searchableAttributes: ["title"], attributesForFaceting: [])
    }

    func search(_ query: SearchQuery) async throws -> SearchResults {
        switch mode {
        case "hang":
            // Deliberately ignores cancellation: the deadline must not wait for it.
            let end = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(50)) }
        default:
            if delay > .zero { try await Task.sleep(for: delay) }
        }
        if mode == "fail" { throw SearchError(.backendError, "\(name): injected failure") }
        let scoreList = scores ?? Array(repeating: score, count: hitCount)
        let all = scoreList.enumerated().map { i, s in
            Hit(
                objectID: "\(name)-\(i)", attributes: JSONObject([("title", .string("\(name) hit \(i) for \(query.text)"))]),
                rankingScore: s)
        }
        let p = query.parameters
        let page = Array(all.dropFirst(p.page * p.hitsPerPage).prefix(p.hitsPerPage))
        let facetCounts = facets.entries.filter { p.facets.contains($0.key) }.map { e in
            FacetCounts(attribute: e.key, values: (e.value.objectValue ?? [:]).entries.map { ($0.key, $0.value.intValue ?? 0) })
        }
        return SearchResults(
            hits: page, nbHits: all.count, page: p.page, nbPages: 1, hitsPerPage: p.hitsPerPage, facets: facetCounts,
            query: query.text, params: p.encodedForResponse(query: query.text), index: name)
    }
}

var registry = BackendRegistry.standard
registry.register("test.fault") { context in
    var r = FieldReader(context.options, path: context.path)
    let delay = try r.int("delayMs", in: 0...600_000) ?? 0
    let mode = try r.string("mode") ?? "ok"
    let hits = try r.int("hits", in: 0...1000) ?? 3
    let score = try r.number("score") ?? 0.5
    let scores = try r.value("scores").map { v throws(SearchError) -> [Double] in
        guard case .array(let a) = v else { throw SearchError(.invalidField, "\(context.path).scores: expected an array") }
        return a.compactMap(\.numberValue)
    }
    let facets = try r.objectValue("facets") ?? [:]
    try r.rejectUnknownKeys()
    return FaultSearchable(
        name: context.name, delay: .milliseconds(delay), mode: mode, hitCount: hits, score: score, scores: scores, facets: facets)
}
exit(DaemonMain.run(arguments: CommandLine.arguments, registry: registry))
