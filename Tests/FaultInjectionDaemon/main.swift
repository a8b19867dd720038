#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchDaemon

/// `fedsearchd-faults`: the real daemon with extra backend kinds for fault injection, used only
/// by the integration tests (these kinds are not shipped to users).
///
/// Kind `test.fault`, options:
/// - `delayMs` (default 0): wait this long (cancellably) before answering;
/// - `mode`: `ok` (default), `fail` (throws `backend_error`), `hang` (ignores cancellation and
///   never answers within the test's lifetime);
/// - `hits` (default 3): how many hits to return, each with `_rankingScore` `score` (default 0.5).
struct FaultSearchable: Searchable {
    let name: String
    let delay: Duration
    let mode: String
    let hitCount: Int
    let score: Double

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
        let hits = (0..<hitCount).map { i in
            Hit(objectID: "\(name)-\(i)", attributes: JSONObject([("title", .string("\(name) hit \(i) for \(query.text)"))]),
                rankingScore: score)
        }
        return SearchResults(
            hits: hits, nbHits: hitCount, page: 0, nbPages: 1, hitsPerPage: query.parameters.hitsPerPage,
            query: query.text, params: query.parameters.encodedForResponse(query: query.text), index: name)
    }
}

var registry = BackendRegistry.standard
registry.register("test.fault") { context in
    var r = FieldReader(context.options, path: context.path)
    let delay = try r.int("delayMs", in: 0...600_000) ?? 0
    let mode = try r.string("mode") ?? "ok"
    let hits = try r.int("hits", in: 0...1000) ?? 3
    let score = try r.number("score") ?? 0.5
    try r.rejectUnknownKeys()
    return FaultSearchable(name: context.name, delay: .milliseconds(delay), mode: mode, hitCount: hits, score: score)
}
exit(DaemonMain.run(arguments: CommandLine.arguments, registry: registry))
