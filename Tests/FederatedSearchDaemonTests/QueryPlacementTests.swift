import Testing
import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchFederation
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

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

    /// The embedded index: answers from memory, so it can run on the request's own task.
    func inMemory(_ names: [String]) throws -> [FederatedSource] {
        let index = try EmbeddedIndex(name: "m", settings: IndexSettings(), documents: [["objectID": "1", "title": "a"]])
        return names.map { FederatedSource(name: $0, searchable: index, query: SearchQuery(text: "q"), timeout: .seconds(1)) }
    }

    /// A page of many hits never runs on the loop, however quick the index was: building a
    /// thousand large documents would stall every other client.
    @Test func largePagesAreNeverQuick() throws {
        let stats = DaemonStats()
        for _ in 0..<50 { stats.recordSource("a", ms: 0.05) }
        var sources = try inMemory(["a"])
        #expect(QueryPlacement.areQuick(sources, stats: stats))
        sources[0].query.parameters.hitsPerPage = 1000
        #expect(!QueryPlacement.areQuick(sources, stats: stats))
        sources[0].query.parameters.hitsPerPage = 20
        sources[0].query.parameters.length = 500
        #expect(!QueryPlacement.areQuick(sources, stats: stats))
        // Counted over all the sources: ten of 100 hits each are a page of a thousand.
        var many = try inMemory(Array(repeating: "a", count: 10))
        for i in many.indices { many[i].query.parameters.hitsPerPage = 100 }
        #expect(!QueryPlacement.areQuick(many, stats: stats))
    }

    /// The decision table, one situation at a time from a base where a lone waiting client's
    /// quick search finds the daemon idle (it runs at once, with no task).
    @Test func placementFollowsWhatTheLoopKnows() {
        func place(quick: Bool = true, onLoop: Int = 0, running: Int = 0, alone: Bool = true, lineIsLast: Bool = true)
            -> QueryPlacement.Kind
        {
            QueryPlacement.decide(quick: quick, searchesOnLoop: onLoop, runningSearches: running, alone: alone, lineIsLast: lineIsLast)
        }
        #expect(place() == .direct)
        // Another request follows in the same read (a pipelining client): a task on the loop.
        #expect(place(lineIsLast: false) == .loop)
        // Other clients are active, or another search runs: a task on the loop.
        #expect(place(alone: false) == .loop)
        #expect(place(running: 1) == .loop)
        // A search on the loop already: off the loop, a task per source.
        #expect(place(onLoop: 1, running: 1) == .parallel)
        #expect(place(onLoop: 1, running: 0) == .parallel)
        // Sources that are not quick never run on the loop.
        #expect(place(quick: false) == .parallel)
        #expect(place(quick: false, running: 3) == .parallel)
    }

    /// A source that waits on the outgoing HTTP loop, or on something else.
    struct Waiting: LoopWaitingSearchable {
        var waitsOnlyOnHTTPLoop: Bool
        var description: SearchableDescription { Idle().description }
        func search(_ query: SearchQuery) async throws -> SearchResults { SearchResults(hits: [], nbHits: 0) }
    }

    func waiting(_ onLoop: Bool) -> FederatedSource {
        FederatedSource(name: "w", searchable: Waiting(waitsOnlyOnHTTPLoop: onLoop), query: SearchQuery(text: "q"), timeout: .seconds(1))
    }

    /// A search whose sources wait on the loop's own HTTP client (a Typesense cluster over
    /// http://), alone or beside quick in-memory ones, runs in a task on the loop, whatever
    /// else runs there; one that waits elsewhere, asks a large page or has a slow in-memory
    /// source beside it goes off the loop.
    @Test func searchesWaitingOnTheLoopsHTTPClientStayOnTheLoop() throws {
        let stats = DaemonStats()
        for _ in 0..<50 { stats.recordSource("a", ms: 0.05) }
        #expect(QueryPlacement.waitsOnLoop([waiting(true)], stats: stats))
        #expect(QueryPlacement.waitsOnLoop([waiting(true)] + (try inMemory(["a"])), stats: stats))
        #expect(!QueryPlacement.waitsOnLoop([waiting(false)], stats: stats))
        #expect(!QueryPlacement.waitsOnLoop([waiting(true), waiting(false)], stats: stats))
        #expect(!QueryPlacement.waitsOnLoop(try inMemory(["a"]), stats: stats), "nothing waits: the quick rule decides")
        #expect(!QueryPlacement.waitsOnLoop(sources(["x"]), stats: stats))
        var large = waiting(true)
        large.query.parameters.hitsPerPage = 500
        #expect(!QueryPlacement.waitsOnLoop([large], stats: stats))
        for _ in 0..<50 { stats.recordSource("slow", ms: 5) }
        #expect(!QueryPlacement.waitsOnLoop([waiting(true)] + (try inMemory(["slow"])), stats: stats))
        // On the loop even with another search there already, never at once (it waits).
        for onLoop in [0, 3] {
            let kind = QueryPlacement.decide(
                quick: false, waitsOnLoop: true, searchesOnLoop: onLoop, runningSearches: onLoop, alone: true, lineIsLast: true)
            #expect(kind == .loop)
        }
    }

    @Test func eachPlacementRunsWhereItSays() {
        #expect(QueryPlacement.Kind.direct.isOnLoop && QueryPlacement.Kind.direct.deliversOnLoop)
        #expect(QueryPlacement.Kind.loop.isOnLoop && QueryPlacement.Kind.loop.deliversOnLoop)
        #expect(!QueryPlacement.Kind.parallel.isOnLoop)
        #expect(QueryPlacement.Kind.loop.inline == .sequential && QueryPlacement.Kind.parallel.inline == .parallel)
        var counts = PlacementCounts()
        for kind in [QueryPlacement.Kind.direct, .loop, .loop, .parallel, .parallel, .parallel] {
            counts.count(kind)
        }
        #expect([counts.direct, counts.loop, counts.parallel] == [1, 2, 3])
    }
}
