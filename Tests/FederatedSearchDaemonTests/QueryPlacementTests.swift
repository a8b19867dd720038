import Testing
import FederatedSearchCore
import FederatedSearchEngine
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

    /// The embedded index: answers from memory, so it can run on the request's own task.
    func inMemory(_ names: [String]) throws -> [FederatedSource] {
        let index = try EmbeddedIndex(name: "m", settings: IndexSettings(), documents: [["objectID": "1", "title": "a"]])
        return names.map { FederatedSource(name: $0, searchable: index, query: SearchQuery(text: "q"), timeout: .seconds(1)) }
    }

    @Test func offTheLoopQuickSourcesRunInTurnOnlyUnderLoad() throws {
        let stats = DaemonStats()
        for _ in 0..<50 {
            stats.recordSource("a", ms: 0.05)
            stats.recordSource("b", ms: 0.05)
            stats.recordSource("heavy", ms: 4)
        }
        // With other searches running, quick in-memory sources share the request's task.
        func mode(_ s: [FederatedSource], running: Int) -> FanOut.InlineMode {
            QueryPlacement.offLoopMode(quick: QueryPlacement.areQuick(s, stats: stats), runningSearches: running)
        }
        #expect(mode(try inMemory(["a", "b"]), running: 3) == .sequential)
        // Alone, each gets a core.
        #expect(mode(try inMemory(["a", "b"]), running: 0) == .parallel)
        // A heavy source would hold back the light one's frame: each keeps its own task.
        #expect(mode(try inMemory(["heavy", "a"]), running: 3) == .parallel)
        // Sources that may wait (not in memory) are never run in turn.
        #expect(mode(sources(["a", "b"]), running: 3) == .parallel)
    }
}
