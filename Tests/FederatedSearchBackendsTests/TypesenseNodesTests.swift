import Foundation
import Synchronization
import Testing
import FederatedSearchCore
import FederatedSearchFederation
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

/// When every node is marked down, the one that answered last goes first, not the next in turn
/// (which may be the one that died); each change of health is told once.
@Suite(.serialized) struct TypesenseNodesFailoverTests {
    let urls = ["http://a:1", "http://b:1", "http://c:1"].map { URL(string: $0)! }
    let t0 = ContinuousClock.now

    @Test func withEveryNodeDownTheOneThatAnsweredLastGoesFirst() {
        let nodes = TypesenseNodes(nodes: urls, nearest: nil, healthcheckInterval: .seconds(60))
        // a and c answer (c last), b never does; then all three fail.
        let a = nodes.next(now: t0)
        nodes.record(a.choice, failure: nil, now: t0)
        let b = nodes.next(now: t0)
        nodes.record(b.choice, failure: "refused", now: t0)
        let c = nodes.next(now: t0)
        nodes.record(c.choice, failure: nil, now: t0 + .milliseconds(5))
        for n in [a, c] { nodes.record(n.choice, failure: "not HTTP", now: t0 + .milliseconds(10)) }
        #expect(nodes.snapshot.allSatisfy { !$0.healthy })
        #expect((0..<2).map { _ in nodes.next(now: t0 + .milliseconds(20)).url.host! } == ["c", "c"])
    }

    final class Told: Sendable {
        let lines = Mutex<[String]>([])
    }

    @Test func eachChangeOfHealthIsToldOnce() {
        let told = Told()
        TypesenseNodes.healthChanges.withLock { $0 = { line in told.lines.withLock { $0.append(line) } } }
        defer { TypesenseNodes.healthChanges.withLock { $0 = nil } }
        let nodes = TypesenseNodes(nodes: urls, nearest: nil, healthcheckInterval: .seconds(60), label: "told-test")
        let a = nodes.next(now: t0)
        nodes.record(a.choice, failure: "timed out")
        nodes.record(a.choice, failure: "timed out")
        nodes.record(a.choice, failure: nil)
        nodes.record(a.choice, failure: nil)
        #expect(
            told.lines.withLock { $0 }.filter { $0.hasPrefix("told-test: ") } == [
                "told-test: node http://a:1 marked unhealthy: timed out", "told-test: node http://a:1 is healthy again",
            ])
    }
}

/// Where a Typesense search waits: on the outgoing HTTP loop when every node is `http://`
/// (the daemon then keeps the search on its loop thread), elsewhere when one is `https://`.
struct TypesenseLoopWaitingTests {
    func source(_ nodes: [String]) throws -> FederatedSource {
        let options: JSONObject = [
            "nodes": .array(nodes.map(JSONValue.string)), "collection": "products", "apiKey": "k", "queryBy": ["title"],
        ]
        let backend = try Typesense.make(BackendConfig(name: "shop", options: options, path: "searchables.shop"), environment: [:])
        return FederatedSource(name: "shop", searchable: backend, query: SearchQuery(text: "q"), timeout: .seconds(1))
    }

    @Test func plainHTTPNodesWaitOnTheLoopAndHTTPSOnesDoNot() throws {
        #expect(try source(["http://127.0.0.1:8108", "http://127.0.0.1:8109"]).waitsOnlyOnHTTPLoop)
        #expect(try !source(["http://127.0.0.1:8108", "https://search.example.com"]).waitsOnlyOnHTTPLoop)
    }
}
