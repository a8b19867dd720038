import FederatedSearchCore
import FederatedSearchFederation
import Synchronization

/// One circuit breaker per configured index, shared by every request (and kept across
/// reloads, since a reload that keeps an index keeps its history).
package final class SourceHealth: Sendable {
    /// Breaker settings, from the config's `circuitBreaker` object.
    package struct Settings: Sendable, Equatable {
        package var failureThreshold = 5
        package var baseBackoffMs = 1000
        package var maxBackoffMs = 60_000

        package static func decode(_ object: JSONObject) throws(SearchError) -> Settings {
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

    private struct State {
        package var settings: Settings
        package var breakers: [String: CircuitBreaker] = [:]

        /// The breaker of `index`, created with the current settings on first use.
        package mutating func breaker(_ index: String) -> CircuitBreaker {
            if let b = breakers[index] { return b }
            return CircuitBreaker(
                failureThreshold: settings.failureThreshold, baseBackoff: .milliseconds(settings.baseBackoffMs),
                maxBackoff: .milliseconds(settings.maxBackoffMs))
        }
    }

    private let state: Mutex<State>

    package init(settings: Settings = Settings()) { state = Mutex(State(settings: settings)) }

    /// New settings apply to breakers created from now on (a reload).
    package func update(_ s: Settings) { state.withLock { $0.settings = s } }

    /// Whether `index` may be asked now.
    package func admit(_ index: String, now: ContinuousClock.Instant) -> CircuitBreaker.Admission {
        state.withLock { st in
            var b = st.breaker(index)
            let admission = b.admit(now: now)
            st.breakers[index] = b
            return admission
        }
    }

    /// Whether `outcome` says anything about the health of `source`'s index. Results do, and
    /// so do a backend failure and a timeout on the index's own deadline. Nothing a client
    /// chose does: a deadline shorter than the index's, a bad request (a filter on an unknown
    /// attribute), a cancelled or superseded search. Otherwise any client could switch an
    /// index off for everyone, or keep a failing one's breaker from opening.
    /// A timeout counts only when the source ran for about its whole deadline (`ranFor`): one
    /// that waited behind others on the same thread (sources run one after another share one
    /// deadline, from the fan-out's start) had less time than the index is given.
    package static func isVerdict(_ outcome: SourceOutcome, of source: FederatedSource, ranFor elapsed: Duration) -> Bool {
        let hadItsTime = elapsed * 20 >= source.timeout * 19
        switch outcome {
        case .results: return true
        case .timedOut: return source.timeoutIsTheIndexs && hadItsTime
        // A backend that gives up at the query's deadline reports it as its own timeout.
        case .failed(let e) where e.code == .timeout: return source.timeoutIsTheIndexs && hadItsTime
        case .failed(let e): return !e.isUserError && e.code != .cancelled && e.code != .superseded
        case .cancelled: return false
        }
    }

    /// Records a verdict on `index` (see ``isVerdict(_:of:)``): results close its breaker,
    /// a failure or timeout counts against it. The caller gives back a probe whose source gave
    /// no verdict with ``abandonProbe(_:)``: another request may hold it.
    package func record(_ index: String, outcome: SourceOutcome, now: ContinuousClock.Instant) {
        state.withLock { st in
            var b = st.breaker(index)
            switch outcome {
            case .results: b.record(success: true, now: now)
            case .timedOut, .failed: b.record(success: false, now: now)
            case .cancelled: break
            }
            st.breakers[index] = b
        }
    }

    /// Gives back a probe whose request was superseded or cancelled before it ended.
    package func abandonProbe(_ index: String) {
        state.withLock { $0.breakers[index]?.abandonProbe() }
    }

    /// The breakers' states, for `stats`.
    package func json(now: ContinuousClock.Instant) -> JSONObject {
        let all = state.withLock { $0.breakers }
        var o = JSONObject()
        for name in all.keys.sorted() { o.appendUnchecked(name, .object(all[name]!.json(now: now))) }
        return o
    }
}

/// The indices whose breaker probe one search holds: set when a source is admitted as the
/// probe, cleared when it ends. A search that is cancelled or superseded gives back these
/// probes only, not another request's.
package final class HeldProbes: Sendable {
    private let indices = Mutex<Set<String>>([])

    package init() {}

    /// The search's source of `index` was admitted as its breaker's probe.
    package func hold(_ index: String) { _ = indices.withLock { $0.insert(index) } }

    /// The probe of `index` ended; returns whether this search held it.
    package func release(_ index: String) -> Bool { indices.withLock { $0.remove(index) != nil } }

    /// Releases every probe still held and returns their indices.
    package func releaseAll() -> [String] {
        indices.withLock { held in
            defer { held = [] }
            return held.sorted()
        }
    }
}
