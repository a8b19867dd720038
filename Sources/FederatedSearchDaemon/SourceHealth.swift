import FederatedSearchCore
import FederatedSearchFederation
import Synchronization

/// One circuit breaker per configured index, shared by every request (and kept across
/// reloads, since a reload that keeps an index keeps its history).
final class SourceHealth: Sendable {
    /// Breaker settings, from the config's `circuitBreaker` object.
    struct Settings: Sendable, Equatable {
        var failureThreshold = 5
        var baseBackoffMs = 1000
        var maxBackoffMs = 60_000

        static func decode(_ object: JSONObject) throws(SearchError) -> Settings {
            var r = FieldReader(object, path: "circuitBreaker")
            var s = Settings()
            if let v = try r.int("failureThreshold", in: 1...1000) { s.failureThreshold = v }
            if let v = try r.int("baseBackoffMs", in: 1...3_600_000) { s.baseBackoffMs = v }
            if let v = try r.int("maxBackoffMs", in: 1...86_400_000) { s.maxBackoffMs = v }
            guard s.maxBackoffMs >= s.baseBackoffMs else {
                throw SearchError(.invalidField, "circuitBreaker.maxBackoffMs: must be at least baseBackoffMs")
            }
            try r.rejectUnknownKeys()
            return s
        }
    }

    private let breakers = Mutex<[String: CircuitBreaker]>([:])
    private let settings: Mutex<Settings>

    init(settings: Settings = Settings()) { self.settings = Mutex(settings) }

    /// New settings apply to breakers created from now on (a reload).
    func update(_ s: Settings) { settings.withLock { $0 = s } }

    private func fresh() -> CircuitBreaker {
        let s = settings.withLock { $0 }
        return CircuitBreaker(
            failureThreshold: s.failureThreshold, baseBackoff: .milliseconds(s.baseBackoffMs),
            maxBackoff: .milliseconds(s.maxBackoffMs))
    }

    /// Whether `index` may be asked now.
    func admit(_ index: String, now: ContinuousClock.Instant) -> CircuitBreaker.Admission {
        let initial = fresh()
        return breakers.withLock { $0[index, default: initial].admit(now: now) }
    }

    /// Records how a source ended: a timeout or backend failure counts against its index; a
    /// request error (a bad filter) does not; a cancelled probe is given back.
    func record(_ index: String, outcome: SourceOutcome, now: ContinuousClock.Instant) {
        let initial = fresh()
        breakers.withLock { all in
            switch outcome {
            case .results: all[index, default: initial].record(success: true, now: now)
            case .timedOut: all[index, default: initial].record(success: false, now: now)
            case .failed(let e): all[index, default: initial].record(success: e.isUserError, now: now)
            case .cancelled: all[index, default: initial].abandonProbe()
            }
        }
    }

    /// Gives back a probe whose request was superseded or cancelled before it ended.
    func abandonProbe(_ index: String) {
        breakers.withLock { $0[index]?.abandonProbe() }
    }

    /// The breakers' states, for `stats`.
    func json(now: ContinuousClock.Instant) -> JSONObject {
        let all = breakers.withLock { $0 }
        var o = JSONObject()
        for name in all.keys.sorted() { o.appendUnchecked(name, .object(all[name]!.json(now: now))) }
        return o
    }
}
