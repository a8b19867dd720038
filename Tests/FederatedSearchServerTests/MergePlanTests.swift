import Testing
import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
@testable import FederatedSearchServer

/// How a request's merge shapes what each source is asked, and what the merge's bookkeeping
/// is keyed by.
struct MergePlanTests {
    /// The merged frame's hits as (index, rank, objectID).
    static func merged(_ frames: [JSONObject]) throws -> [String] {
        let merged = try #require(frames.first { $0["type"]?.stringValue == "merged" })
        return (merged["hits"]?.arrayValue ?? []).map { hit in
            let o = hit.objectValue ?? [:]
            let rank = o["_federation"]?.objectValue?["rank"]?.intValue ?? -1
            return "\(o["_index"]?.stringValue ?? "?")/\(rank)/\(o["objectID"]?.stringValue ?? "?")"
        }
    }

    /// With an explicit merge each source is asked for its first `offset + limit` hits: an
    /// `offset`/`length` in `params` (which overrides `page`/`hitsPerPage` in a source) must not
    /// shift the sources' lists, or the merged page holds the wrong ranks under rank labels 0...
    @Test func explicitMergeAsksForTheFirstHitsEvenWithOffsetInParams() async throws {
        let catalog = try RequestReplayTests.catalog()
        let plain = try Self.merged(
            try await RequestReplayTests.frames(
                #"{"id":"a","query":"star","indices":["movies"],"merge":{"limit":1}}"#, catalog))
        let shifted = try Self.merged(
            try await RequestReplayTests.frames(
                #"{"id":"b","query":"star","indices":["movies"],"params":{"offset":1,"length":1},"merge":{"limit":1}}"#, catalog))
        #expect(plain.count == 1)
        #expect(shifted == plain)
        // The plan itself: no offset/length left in any source's parameters.
        let request = try #require(
            { () -> SearchRequest? in
                if case .success(let r) = RequestDecoder.decode(
                    Array(
                        #"{"query":"star","indices":["movies","products"],"params":{"offset":1,"length":1},"merge":{"offset":1,"limit":2}}"#
                            .utf8)),
                    case .search(let s) = r.operation
                {
                    return s
                }
                return nil
            }())
        let (sources, _) = try SearchExecutor.plan(request, in: catalog, peer: nil)
        for s in sources {
            #expect(s.query.parameters.offset == nil)
            #expect(s.query.parameters.length == nil)
            #expect(s.query.parameters.page == 0)
            #expect(s.query.parameters.hitsPerPage == 3)
        }
    }

    /// Latency is an index's, whatever name its sources answer under (`as`): `stats.latency`
    /// lists indices, and the placement judges a source by its index's recent latency, so a
    /// client's made-up names neither add entries nor make a slow index look new and quick.
    @Test func latencyIsRecordedUnderTheIndexNotTheSourceName() async throws {
        let catalog = try RequestReplayTests.catalog()
        let request = try #require(
            { () -> SearchRequest? in
                if case .success(let r) = RequestDecoder.decode(
                    Array(
                        #"{"query":"star","indices":[{"index":"movies","as":"classics"},{"index":"movies","as":"recent"}]}"#.utf8)),
                    case .search(let s) = r.operation
                {
                    return s
                }
                return nil
            }(), "request did not decode")
        let (sources, plan) = try SearchExecutor.plan(request, in: catalog, peer: nil)
        let stats = DaemonStats()
        _ = await SearchExecutor.run(id: "q", sources: sources, plan: plan, stats: stats, health: SourceHealth()) { _, _ in }
        let latency = stats.json(connections: 0)["latency"]?.objectValue ?? [:]
        #expect(latency.entries.map(\.key) == ["movies"])
        #expect(stats.meanLatency("movies") > 0)
    }
}
