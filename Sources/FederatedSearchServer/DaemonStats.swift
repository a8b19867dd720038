import FederatedSearchCore
import Synchronization

/// Counters and latency samples for the `stats` op, safe to update from any task.
public final class DaemonStats: Sendable {
    private struct State {
        package var queries = 0
        package var errors = 0
        /// The last `capacity` latencies per index, in milliseconds (a ring).
        package var samples: [String: Ring] = [:]
        /// Exponentially weighted mean latency per index, in milliseconds.
        package var mean: [String: Double] = [:]
        /// Bytes of pages built and dropped past `answerByteLimit` since the loop last asked.
        package var refusedPageBytes = 0
    }

    package struct Ring {
        package var values: [Double] = []
        package var next = 0
        package mutating func add(_ v: Double, capacity: Int) {
            if values.count < capacity {
                values.append(v)
            } else {
                values[next] = v
                next = (next + 1) % capacity
            }
        }
    }

    private let state = Mutex(State())
    private let capacity = 2048
    private let start = ContinuousClock.now

    public init() {}

    /// Records one finished request.
    public func recordRequest(failed: Bool) {
        state.withLock {
            $0.queries += 1
            if failed { $0.errors += 1 }
        }
    }

    /// Records one source's latency.
    public func recordSource(_ index: String, ms: Double) {
        let cap = capacity
        state.withLock {
            $0.samples[index, default: Ring()].add(ms, capacity: cap)
            $0.mean[index] = $0.mean[index].map { $0 * 0.9 + ms * 0.1 } ?? ms
        }
    }

    /// A source's page was dropped once it passed `bytes` (its `answerByteLimit`).
    package func recordRefusedPage(bytes: Int) { state.withLock { $0.refusedPageBytes += bytes } }

    /// The bytes of pages dropped since the last call (the loop trims the heap after many).
    package func takeRefusedPageBytes() -> Int {
        state.withLock { s in
            defer { s.refusedPageBytes = 0 }
            return s.refusedPageBytes
        }
    }

    /// The recent mean latency of an index in milliseconds (0 before its first query).
    public func meanLatency(_ index: String) -> Double {
        state.withLock { $0.mean[index] ?? 0 }
    }

    /// The stats payload; `connections` comes from the loop, which owns that count.
    public func json(connections: Int) -> JSONObject {
        let (queries, errors, samples) = state.withLock { ($0.queries, $0.errors, $0.samples) }
        let uptime = ContinuousClock.now - start
        var perIndex = JSONObject()
        for name in samples.keys.sorted() {
            let sorted = samples[name]!.values.sorted()
            func pct(_ p: Double) -> JSONValue {
                guard !sorted.isEmpty else { return .null }
                let i = min(sorted.count - 1, Int((p * Double(sorted.count)).rounded(.up)) - 1)
                return .number((sorted[max(0, i)] * 1000).rounded() / 1000)
            }
            perIndex.appendUnchecked(
                name,
                [
                    "samples": .number(Double(sorted.count)), "p50Ms": pct(0.5), "p90Ms": pct(0.9), "p99Ms": pct(0.99),
                ])
        }
        return JSONObject([
            ("uptimeSeconds", .number(Double(uptime.components.seconds))),
            ("connections", .number(Double(connections))),
            ("queriesServed", .number(Double(queries))),
            ("queriesFailed", .number(Double(errors))),
            ("latency", .object(perIndex)),
        ])
    }
}
