import Testing
import FederatedSearchCore
import FederatedSearchFederation
@testable import FederatedSearchDaemon

/// Only what says something about an index counts toward its breaker: nothing a client chose.
struct SourceHealthTests {
    struct Nothing: Searchable {
        var description: SearchableDescription {
            SearchableDescription(kind: "test", documentCount: 0, searchableAttributes: [], attributesForFaceting: [])
        }
        func search(_ query: SearchQuery) async throws -> SearchResults {
            SearchResults(hits: [], nbHits: 0, page: 0, nbPages: 0, hitsPerPage: 0)
        }
    }

    static func source(clientDeadline: Bool) -> FederatedSource {
        var s = FederatedSource(name: "movies", searchable: Nothing(), query: SearchQuery(text: "x"), timeout: .milliseconds(1))
        s.timeoutIsTheIndexs = !clientDeadline
        return s
    }

    @Test func verdicts() {
        let own = Self.source(clientDeadline: false)
        let chosen = Self.source(clientDeadline: true)
        #expect(SourceHealth.isVerdict(.timedOut, of: own))
        #expect(!SourceHealth.isVerdict(.timedOut, of: chosen))
        #expect(SourceHealth.isVerdict(.failed(SearchError(.backendError, "down")), of: chosen))
        #expect(!SourceHealth.isVerdict(.failed(SearchError(.invalidFilter, "bad filter")), of: own))
        #expect(!SourceHealth.isVerdict(.cancelled, of: own))
        // A backend that gives up at the query's deadline reports it as its own timeout.
        #expect(!SourceHealth.isVerdict(.failed(SearchError(.timeout, "pg: deadline")), of: chosen))
        #expect(SourceHealth.isVerdict(.failed(SearchError(.timeout, "pg: deadline")), of: own))
        #expect(SourceHealth.isVerdict(.results(SearchResults(hits: [], nbHits: 0, page: 0, nbPages: 0, hitsPerPage: 0)), of: chosen))
    }

    /// Bad requests no longer count as successes: they cannot keep a failing index's breaker closed.
    @Test func failuresOpenTheBreakerWhateverBadRequestsComeBetween() {
        let health = SourceHealth(settings: SourceHealth.Settings(failureThreshold: 3, baseBackoffMs: 60_000, maxBackoffMs: 60_000))
        let now = ContinuousClock.now
        let own = Self.source(clientDeadline: false)
        for _ in 0..<3 {
            health.record("movies", outcome: .failed(SearchError(.backendError, "down")), now: now)
            let bad = SourceOutcome.failed(SearchError(.invalidFilter, "bad"))
            if SourceHealth.isVerdict(bad, of: own) { health.record("movies", outcome: bad, now: now) }
        }
        guard case .skip = health.admit("movies", now: now) else {
            Issue.record("the breaker should be open")
            return
        }
    }
}
