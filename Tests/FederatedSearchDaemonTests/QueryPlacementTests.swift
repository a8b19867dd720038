import Testing
import FederatedSearchCore
import FederatedSearchFederation
@testable import FederatedSearchDaemon

/// Where a request's sources run: spread over threads only when the work handed over is worth
/// waking a thread for.
struct QueryPlacementTests {
    struct Idle: Searchable {
        var description: SearchableDescription {
            SearchableDescription(kind: "test", documentCount: 0, searchableAttributes: [], attributesForFaceting: [])
        }
        func search(_ query: SearchQuery) async throws -> SearchResults { SearchResults(hits: [], nbHits: 0) }
    }

    func sources(_ names: [String]) -> [FederatedSource] {
        names.map { FederatedSource(name: $0, searchable: Idle(), query: SearchQuery(text: "q"), timeout: .seconds(1)) }
    }

    @Test func spreadsOnlyWhenTheOthersHaveEnoughWork() {
        let stats = DaemonStats()
        for _ in 0..<50 {
            stats.recordSource("big", ms: 0.08)
            stats.recordSource("small", ms: 0.03)
            stats.recordSource("medium", ms: 0.05)
        }
        // The slowest stays on the loop: what would move is the rest.
        #expect(!QueryPlacement.spreads(sources(["big", "small"]), stats: stats))
        #expect(QueryPlacement.spreads(sources(["big", "small", "medium"]), stats: stats))
        #expect(!QueryPlacement.spreads(sources(["big"]), stats: stats))
        // Unknown indices (no latency yet) are not spread.
        #expect(!QueryPlacement.spreads(sources(["new", "other"]), stats: stats))
    }
}
