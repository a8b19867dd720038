import FederatedSearchCore
import Foundation
import Synchronization

/// The nodes of a Typesense cluster and what requests have learnt of their health, as
/// Typesense's own clients keep it.
///
/// A request asks ``next(now:)`` for its node: the nearest node while it is healthy, otherwise
/// the next healthy node in turn (round robin). A node that failed (it could not be reached,
/// timed out or answered 5xx) is marked unhealthy and skipped until `healthcheckInterval` has
/// passed since it was last tried; then a request tries it again, and its answer marks it
/// healthy. When every node is marked unhealthy, a request still goes somewhere: to the node
/// that answered last (the most likely to answer again), not to the next in turn, which may be
/// the one that died. Each change of a node's health is told to ``healthChanges``.
public final class TypesenseNodes: Sendable {
    /// Where each change of a node's health is told (the daemon logs it at `info`).
    public static let healthChanges = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// One node's standing.
    public struct Node: Sendable, Equatable {
        public let url: URL
        public var healthy = true
        /// When a request last went to it (nil: never).
        public var lastTried: ContinuousClock.Instant?
        public var requests = 0
        public var failures = 0
        /// Why it last failed.
        public var lastError: String?
        /// When it last answered (nil: never).
        public var lastAnswered: ContinuousClock.Instant?

        init(url: URL) { self.url = url }
    }

    private struct State {
        var nodes: [Node]
        var nearest: Node?
        /// The position of the node last picked in turn.
        var turn: Int
    }

    private let state: Mutex<State>
    private let healthcheckInterval: Duration
    /// What the nodes serve, for the health changes told (`shop: searches`).
    private let label: String

    public init(nodes: [URL], nearest: URL?, healthcheckInterval: Duration, label: String = "") {
        // The turn starts before the first node, so the first request goes to it.
        state = Mutex(State(nodes: nodes.map(Node.init), nearest: nearest.map(Node.init), turn: nodes.count - 1))
        self.healthcheckInterval = healthcheckInterval
        self.label = label
    }

    /// Which node a request goes to: `nil` for the nearest one, else a position in `nodes`.
    public typealias Choice = Int?

    /// The node for the next attempt, and its URL; it is counted as tried now.
    public func next(now: ContinuousClock.Instant = .now) -> (choice: Choice, url: URL) {
        state.withLock { s in
            if var nearest = s.nearest, usable(nearest, now: now) {
                nearest.lastTried = now
                nearest.requests += 1
                s.nearest = nearest
                return (nil, nearest.url)
            }
            var found: Int?
            for step in 1...s.nodes.count {
                let i = (s.turn + step) % s.nodes.count
                if usable(s.nodes[i], now: now) {
                    found = i
                    break
                }
            }
            // None usable: the node that answered most recently; if none ever answered, the
            // next in turn.
            var pick = found ?? (s.turn + 1) % s.nodes.count
            var answered: ContinuousClock.Instant?
            if found == nil {
                for i in s.nodes.indices {
                    guard let t = s.nodes[i].lastAnswered, answered.map({ t > $0 }) ?? true else { continue }
                    answered = t
                    pick = i
                }
            }
            if answered == nil { s.turn = pick }
            s.nodes[pick].lastTried = now
            s.nodes[pick].requests += 1
            return (pick, s.nodes[pick].url)
        }
    }

    /// Records how an attempt on `choice` went: an answer other than 5xx marks the node
    /// healthy; a failure marks it unhealthy, with why.
    public func record(_ choice: Choice, failure: String?, now: ContinuousClock.Instant = .now) {
        let change = state.withLock { s -> String? in
            func update(_ n: inout Node) -> String? {
                let was = n.healthy
                n.healthy = failure == nil
                if let failure {
                    n.failures += 1
                    n.lastError = failure
                } else {
                    n.lastAnswered = now
                }
                guard was != n.healthy else { return nil }
                let name = label.isEmpty ? "" : "\(label): "
                return n.healthy
                    ? "\(name)node \(n.url.absoluteString) is healthy again"
                    : "\(name)node \(n.url.absoluteString) marked unhealthy: \(failure ?? "")"
            }
            if let i = choice { return update(&s.nodes[i]) }
            if s.nearest != nil { return update(&s.nearest!) }
            return nil
        }
        if let change, let tell = Self.healthChanges.withLock({ $0 }) { tell(change) }
    }

    /// The nodes now (the nearest one first, when there is one).
    public var snapshot: [Node] { state.withLock { s in (s.nearest.map { [$0] } ?? []) + s.nodes } }

    /// Each node's health for `stats`.
    public func json(now: ContinuousClock.Instant = .now) -> JSONValue {
        let s = state.withLock { $0 }
        func entry(_ n: Node, nearest: Bool) -> JSONValue {
            var o: JSONObject = [
                "url": .string(n.url.absoluteString), "healthy": .bool(n.healthy),
                "requests": .number(Double(n.requests)), "failures": .number(Double(n.failures)),
            ]
            if nearest { o["nearest"] = true }
            if !n.healthy, let t = n.lastTried {
                let left = healthcheckInterval - (now - t)
                o["retryInMs"] = .number(
                    max(0, Double(left.components.seconds) * 1000 + Double(left.components.attoseconds) / 1e15).rounded())
            }
            if let e = n.lastError { o["lastError"] = .string(e) }
            return .object(o)
        }
        return .array((s.nearest.map { [entry($0, nearest: true)] } ?? []) + s.nodes.map { entry($0, nearest: false) })
    }

    /// A node may take a request: it is healthy, or it failed long enough ago to be tried again.
    private func usable(_ n: Node, now: ContinuousClock.Instant) -> Bool {
        n.healthy || n.lastTried.map { now - $0 >= healthcheckInterval } ?? true
    }
}
