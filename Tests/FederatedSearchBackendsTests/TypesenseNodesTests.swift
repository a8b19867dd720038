import Foundation
import Testing
@testable import FederatedSearchBackends

/// How a request picks its Typesense node: the nearest while healthy, the others in turn,
/// a failed node skipped until the health-check interval has passed since it was tried.
struct TypesenseNodesTests {
    let urls = ["http://a:1", "http://b:1", "http://c:1"].map { URL(string: $0)! }
    let t0 = ContinuousClock.now

    @Test func requestsGoRoundTheNodesInTurn() {
        let nodes = TypesenseNodes(nodes: urls, nearest: nil, healthcheckInterval: .seconds(60))
        let picked = (0..<4).map { _ in nodes.next(now: t0).url.host! }
        #expect(picked == ["a", "b", "c", "a"])
    }

    @Test func aFailedNodeIsSkippedUntilItsIntervalPasses() {
        let nodes = TypesenseNodes(nodes: urls, nearest: nil, healthcheckInterval: .seconds(2))
        let first = nodes.next(now: t0)
        nodes.record(first.choice, failure: "connection refused")
        #expect(nodes.snapshot[0].healthy == false && nodes.snapshot[0].lastError == "connection refused")
        // b, c, then b again: a was tried at t0, 1 s ago.
        let later = t0 + .seconds(1)
        #expect((0..<3).map { _ in nodes.next(now: later).url.host! } == ["b", "c", "b"])
        // Past the interval, a is tried again in its turn, and an answer makes it healthy.
        let again = t0 + .seconds(3)
        let picks = (0..<2).map { _ in nodes.next(now: again) }
        #expect(picks.map(\.url.host!) == ["c", "a"])
        nodes.record(picks[1].choice, failure: nil)
        #expect(nodes.snapshot[0].healthy)
        #expect(nodes.snapshot.map(\.requests) == [2, 2, 2] && nodes.snapshot[0].failures == 1)
    }

    @Test func theNearestNodeGoesFirstWhileHealthy() throws {
        let nodes = TypesenseNodes(nodes: urls, nearest: URL(string: "http://near:1"), healthcheckInterval: .seconds(5))
        let n = nodes.next(now: t0)
        #expect(n.url.host == "near" && n.choice == nil)
        nodes.record(n.choice, failure: "HTTP 503")
        #expect(nodes.next(now: t0 + .seconds(1)).url.host == "a")
        #expect(nodes.next(now: t0 + .seconds(6)).url.host == "near", "tried again once its interval passed")
        let entries = try #require(nodes.json(now: t0 + .seconds(6)).arrayValue, "not an array")
        #expect(entries.first?.objectValue?["nearest"] == true)
        #expect(entries.first?.objectValue?["healthy"] == false)
    }

    /// With every node marked unhealthy, requests still go somewhere, in turn.
    @Test func withEveryNodeDownTheTurnGoesOn() {
        let nodes = TypesenseNodes(nodes: urls, nearest: nil, healthcheckInterval: .seconds(60))
        for _ in 0..<3 {
            let n = nodes.next(now: t0)
            nodes.record(n.choice, failure: "down")
        }
        #expect((0..<3).map { _ in nodes.next(now: t0).url.host! } == ["a", "b", "c"])
    }
}
