import FederatedSearchCore

/// A per-source circuit breaker: pure, with the clock passed in.
///
/// - **Closed**: every query is allowed. `failureThreshold` consecutive failures (errors or
///   timeouts) open it for `baseBackoff`; a success resets the count.
/// - **Open** until an instant: queries are skipped (reported `skipped` with the instant).
/// - **Half-open**: the first query after the instant is the one probe; while it is
///   outstanding others are skipped. A successful probe closes the breaker and resets the
///   back-off; a failed one reopens it with the back-off doubled, up to `maxBackoff`.
///
/// A probe whose result never comes (its request was cancelled, say) is given up after
/// `probeTimeout`, or at once with ``abandonProbe()``; the next query is then a new probe.
/// Results recorded while open (queries admitted before it opened) are ignored; in half-open
/// the next recorded result is taken as the probe's.
public struct CircuitBreaker: Sendable {
    /// What to do with one query.
    public enum Admission: Sendable, Equatable {
        /// Send it.
        case allow
        /// Send it as the one probe of a half-open breaker; record its result.
        case probe
        /// Do not send it; the source is suspended until the instant.
        case skip(until: ContinuousClock.Instant)
    }

    /// The breaker's state.
    public enum State: Sendable, Equatable {
        case closed
        case open(until: ContinuousClock.Instant)
        case halfOpen
    }

    public let failureThreshold: Int
    public let baseBackoff: Duration
    public let maxBackoff: Duration
    /// How long an unanswered probe blocks others.
    public let probeTimeout: Duration

    public private(set) var state: State = .closed
    /// Failures since the last success (in half-open and open, those that opened it).
    public private(set) var consecutiveFailures = 0
    /// The back-off of the current or last opening; the next failed probe doubles it.
    public private(set) var backoff: Duration
    /// When the outstanding probe was admitted, in half-open; nil when there is none.
    private var probeStarted: ContinuousClock.Instant?

    public init(
        failureThreshold: Int = 5, baseBackoff: Duration = .seconds(1), maxBackoff: Duration = .seconds(60),
        probeTimeout: Duration = .seconds(10)
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.baseBackoff = baseBackoff
        self.maxBackoff = max(maxBackoff, baseBackoff)
        self.probeTimeout = probeTimeout
        self.backoff = baseBackoff
    }

    /// Decides whether a query may go to the source at `now`.
    public mutating func admit(now: ContinuousClock.Instant) -> Admission {
        switch state {
        case .closed:
            return .allow
        case .open(let until):
            if now < until { return .skip(until: until) }
            state = .halfOpen
            probeStarted = now
            return .probe
        case .halfOpen:
            if let started = probeStarted, now < started + probeTimeout { return .skip(until: started + probeTimeout) }
            probeStarted = now
            return .probe
        }
    }

    /// Records a query's result: `success: false` for an error or a timeout.
    public mutating func record(success: Bool, now: ContinuousClock.Instant) {
        switch state {
        case .closed:
            if success {
                consecutiveFailures = 0
            } else {
                consecutiveFailures += 1
                if consecutiveFailures >= failureThreshold {
                    backoff = baseBackoff
                    state = .open(until: now + backoff)
                }
            }
        case .open:
            break
        case .halfOpen:
            probeStarted = nil
            if success {
                state = .closed
                consecutiveFailures = 0
                backoff = baseBackoff
            } else {
                consecutiveFailures += 1
                backoff = min(backoff * 2, maxBackoff)
                state = .open(until: now + backoff)
            }
        }
    }

    /// Gives up the outstanding probe without a verdict (its request was cancelled, say):
    /// the next query becomes the probe.
    public mutating func abandonProbe() {
        probeStarted = nil
    }

    /// The breaker for the `stats` op: `state` (`closed`, `open`, `halfOpen`),
    /// `consecutiveFailures`, `backoffMs`, and for `open` `suspendedForMs` (time left).
    public func json(now: ContinuousClock.Instant) -> JSONObject {
        var o = JSONObject()
        switch state {
        case .closed: o.appendUnchecked("state", "closed")
        case .open: o.appendUnchecked("state", "open")
        case .halfOpen: o.appendUnchecked("state", "halfOpen")
        }
        o.appendUnchecked("consecutiveFailures", .number(Double(consecutiveFailures)))
        o.appendUnchecked("backoffMs", .number(Self.milliseconds(backoff)))
        if case .open(let until) = state {
            o.appendUnchecked("suspendedForMs", .number(Self.milliseconds(max(.zero, until - now))))
        }
        return o
    }

    /// A duration in whole milliseconds, rounded up.
    static func milliseconds(_ d: Duration) -> Double {
        let c = d.components
        return (Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15).rounded(.up)
    }
}
