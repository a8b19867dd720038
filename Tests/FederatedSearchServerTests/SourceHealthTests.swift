import Testing
import FederatedSearchCore
import FederatedSearchFederation
@testable import FederatedSearchServer

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

    static func source(clientDeadline: Bool, timeoutMs: Int = 1) -> FederatedSource {
        var s = FederatedSource(
            name: "movies", searchable: Nothing(), query: SearchQuery(text: "x"), timeout: .milliseconds(timeoutMs))
        s.timeoutIsTheIndexs = !clientDeadline
        return s
    }

    @Test func verdicts() {
        let own = Self.source(clientDeadline: false)
        let chosen = Self.source(clientDeadline: true)
        #expect(SourceHealth.isVerdict(.timedOut, of: own, ranFor: .milliseconds(1)))
        #expect(!SourceHealth.isVerdict(.timedOut, of: chosen, ranFor: .milliseconds(1)))
        #expect(SourceHealth.isVerdict(.failed(SearchError(.backendError, "down")), of: chosen, ranFor: .milliseconds(1)))
        #expect(!SourceHealth.isVerdict(.failed(SearchError(.invalidFilter, "bad filter")), of: own, ranFor: .milliseconds(1)))
        #expect(!SourceHealth.isVerdict(.cancelled, of: own, ranFor: .milliseconds(1)))
        // A source that waited behind others and timed out having run only part of its
        // deadline says nothing about its index.
        #expect(!SourceHealth.isVerdict(.timedOut, of: Self.source(clientDeadline: false, timeoutMs: 500), ranFor: .milliseconds(100)))
        #expect(SourceHealth.isVerdict(.timedOut, of: Self.source(clientDeadline: false, timeoutMs: 500), ranFor: .milliseconds(499)))
        // A backend that gives up at the query's deadline reports it as its own timeout.
        #expect(!SourceHealth.isVerdict(.failed(SearchError(.timeout, "pg: deadline")), of: chosen, ranFor: .milliseconds(1)))
        #expect(SourceHealth.isVerdict(.failed(SearchError(.timeout, "pg: deadline")), of: own, ranFor: .milliseconds(1)))
        #expect(
            SourceHealth.isVerdict(
                .results(SearchResults(hits: [], nbHits: 0, page: 0, nbPages: 0, hitsPerPage: 0)), of: chosen, ranFor: .milliseconds(1)))
    }

    /// Bad requests no longer count as successes: they cannot keep a failing index's breaker closed.
    @Test func failuresOpenTheBreakerWhateverBadRequestsComeBetween() throws {
        let health = SourceHealth(settings: SourceHealth.Settings(failureThreshold: 3, baseBackoffMs: 60_000, maxBackoffMs: 60_000))
        let now = ContinuousClock.now
        let own = Self.source(clientDeadline: false)
        for _ in 0..<3 {
            health.record("movies", outcome: .failed(SearchError(.backendError, "down")), now: now)
            let bad = SourceOutcome.failed(SearchError(.invalidFilter, "bad"))
            if SourceHealth.isVerdict(bad, of: own, ranFor: .milliseconds(1)) { health.record("movies", outcome: bad, now: now) }
        }
        let skipped = if case .skip = health.admit("movies", now: now) { true } else { false }
        try #require(skipped, "the breaker should be open")
    }
}
