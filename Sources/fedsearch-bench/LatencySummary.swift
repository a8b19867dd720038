/// Percentiles and throughput of one measured run.
struct LatencySummary {
    let p50: Double
    let p99: Double
    let queriesPerSecond: Double

    /// `samples` in microseconds, over `seconds` of wall time.
    init(samples: [Double], seconds: Double) {
        let s = samples.sorted()
        func pct(_ p: Double) -> Double {
            guard !s.isEmpty else { return 0 }
            return s[min(s.count - 1, max(0, Int((p * Double(s.count)).rounded(.up)) - 1))]
        }
        p50 = pct(0.5)
        p99 = pct(0.99)
        queriesPerSecond = seconds > 0 ? Double(samples.count) / seconds : 0
    }

    init(p50: Double, p99: Double, queriesPerSecond: Double) {
        self.p50 = p50
        self.p99 = p99
        self.queriesPerSecond = queriesPerSecond
    }

    /// The median of each figure over several runs.
    static func median(_ runs: [LatencySummary]) -> LatencySummary {
        func med(_ xs: [Double]) -> Double {
            let s = xs.sorted()
            return s.isEmpty ? 0 : s[s.count / 2]
        }
        return LatencySummary(
            p50: med(runs.map(\.p50)), p99: med(runs.map(\.p99)),
            queriesPerSecond: med(runs.map(\.queriesPerSecond)))
    }
}

/// Microseconds elapsed on the monotonic clock.
func microseconds(since start: ContinuousClock.Instant) -> Double {
    microseconds(from: start, to: .now)
}

/// Microseconds from `start` to `end`.
func microseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
    let c = (end - start).components
    return Double(c.seconds) * 1e6 + Double(c.attoseconds) / 1e12
}
