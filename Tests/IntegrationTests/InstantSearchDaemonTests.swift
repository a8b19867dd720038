import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch

/// The InstantSearch library against the real daemon on the demo config:
/// 1. a `FederatedSearcher` over two indices feeds two Hits interactors in the order the
///    indices answered (a slow one listed first comes second), then the merged list and the status;
/// 2. 20 keystrokes sent 2 ms apart end with the last query's results shown, and no result of
///    an older keystroke is ever delivered after a newer one's;
/// 3. a FacetList's counts with a refinement are the daemon's disjunctive counts;
/// 4. after the daemon restarts, the searcher reaches it again and the last search is answered.
@Suite(.serialized)
@MainActor
struct InstantSearchDaemonTests {
    final class Log {
        var events: [String] = []
        var deliveredSeqs: [Int] = []
    }

    /// Waits (yielding the main actor to the searchers' tasks) until `condition` holds or
    /// `seconds` pass.
    func eventually(seconds: Double = 15, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    @Test func aFederatedSearcherFeedsTwoHitsInteractorsInCompletionOrder() async throws {
        // A slow index listed first, so completion order is not request order.
        let server = try SearchServerProcess()
        defer { server.stop() }
        let movies = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data/movies.ndjson").path
        let d = try DaemonProcess(config: [
            "searchables": [
                "slow": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=400"), "timeoutMs": 5000,
                    "response": ["hits": "results.items", "nbHits": "results.total"],
                ],
                "movies": ["data": .string(movies), "searchableAttributes": ["title"], "attributesForFaceting": ["genres"]],
            ]
        ])
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let searcher = FederatedSearcher(transport: connection, indices: [SearcherId(index: "slow"), SearcherId(index: "movies")])
        let slowHits = HitsInteractor()
        let movieHits = HitsInteractor()
        slowHits.connectSearcher(searcher.source("slow")!)
        movieHits.connectSearcher(searcher.source("movies")!)
        let log = Log()
        movieHits.onResultsUpdated.subscribe(with: log) { l, _ in l.events.append("movies hits") }
        slowHits.onResultsUpdated.subscribe(with: log) { l, _ in l.events.append("slow hits") }
        searcher.onMergedResults.subscribe(with: log) { l, _ in l.events.append("merged") }
        searcher.onStatus.subscribe(with: log) { l, s in l.events.append("status \(s.status.rawValue)") }
        searcher.query = "star"
        searcher.search()
        // The fast index is shown while the slow one is still being waited for.
        #expect(await eventually { log.events == ["movies hits"] }, "\(log.events)")
        #expect(searcher.isSearching)
        #expect(await eventually { log.events.last?.hasPrefix("status") == true }, "\(log.events)")
        #expect(log.events == ["movies hits", "slow hits", "merged", "status ok"])
        #expect(movieHits.hits.first?.attributes["title"]?.stringValue?.hasPrefix("Star") == true)
        #expect(slowHits.results?.nbHits == 0)
    }

    @Test func twentyKeystrokesEndWithTheLastQueryAndNoStaleResult() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let searcher = FederatedSearcher(transport: connection, indices: [SearcherId(index: "movies"), SearcherId(index: "products")])
        let box = SearchBoxInteractor()
        box.connectSearcher(searcher)
        let hits = HitsInteractor()
        hits.connectSearcher(searcher.source("movies")!)
        let log = Log()
        let text = "the empire strikes b"  // 20 keystrokes
        var queries: [String] = []
        for i in 1...text.count { queries.append(String(text.prefix(i))) }
        searcher.onIndexResults.subscribe(with: log) { l, r in
            l.deliveredSeqs.append(r.seq)
            l.events.append(r.results.query)
        }
        for q in queries {
            box.query = q
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(
            await eventually { hits.results?.query == text && !searcher.isSearching }, "last shown: \(hits.results?.query ?? "nothing")")
        #expect(
            log.deliveredSeqs == log.deliveredSeqs.sorted(), "an older keystroke's result came after a newer one's: \(log.deliveredSeqs)")
        let positions = log.events.map { q in queries.firstIndex(of: q) ?? -1 }
        #expect(positions == positions.sorted(), "\(log.events)")
        #expect(hits.hits.first?.attributes["title"]?.stringValue == "The Empire Strikes Back")
    }

    @Test func facetListCountsAreTheDaemonsDisjunctiveCounts() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let searcher = HitsSearcher(transport: connection, index: SearcherId(index: "movies"))
        let filterState = FilterState()
        searcher.connectFilterState(filterState)
        let genres = FacetListInteractor()
        genres.connectSearcher(searcher, attribute: "genres")
        genres.connectFilterState(filterState, attribute: "genres", operator: .or)
        searcher.query = "love"
        searcher.search()
        #expect(await eventually { !genres.facets.isEmpty && !searcher.federated.isSearching })
        genres.toggleSelection("Comedy")
        #expect(await eventually { genres.selections == ["Comedy"] && !searcher.federated.isSearching })
        let seen = Dictionary(uniqueKeysWithValues: genres.facets.map { ($0.value, $0.count) })
        // The same request by hand: the refined facet's counts ignore its own refinement.
        let frames = try d.connect().roundTrip([
            "id": "f", "query": "love", "indices": ["movies"],
            "params": ["facets": ["genres"], "disjunctiveFacets": ["genres"], "filters": "genres:Comedy"],
        ])
        let r = try #require(frames.first?.resultsValue, "\(frames)")
        let daemon = Dictionary(
            uniqueKeysWithValues: (r.facets.first { $0.attribute == "genres" }?.values ?? []).map { ($0.value, $0.count) })
        #expect(seen == daemon)
        #expect((seen["Drama"] ?? 0) > 0, "a disjunctive facet keeps its other values' counts")
        #expect(searcher.federated.sources[0].effectiveParameters.filters == "genres:Comedy")
        let comedyOnly = try #require(
            d.connect().roundTrip([
                "id": "c", "query": "love", "indices": ["movies"], "params": ["filters": "genres:Comedy", "hitsPerPage": 0],
            ]).first)
        let c = try #require(comedyOnly.resultsValue, "\(comedyOnly)")
        #expect(c.nbHits == seen["Comedy"])
    }

    @Test func theSearcherReachesARestartedDaemonAndAnswersTheLastSearch() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath, backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
        defer { connection.close() }
        let searcher = HitsSearcher(transport: connection, index: SearcherId(index: "movies"))
        let hits = HitsInteractor()
        hits.connectSearcher(searcher)
        let log = Log()
        searcher.onError.subscribe(with: log) { l, e in l.events.append(e.code) }
        searcher.query = "dune"
        searcher.search()
        #expect(await eventually { hits.results?.query == "dune" })
        d.halt(kill: true)
        #expect(await eventually { if case .disconnected = connection.currentState { return true } else { return false } })
        searcher.query = "alien"
        searcher.search()
        #expect(log.events.last == "unavailable", "\(log.events)")
        try d.start()
        #expect(
            await eventually { hits.results?.query == "alien" },
            "the search made while the daemon was down was not answered after it came back")
    }
}
