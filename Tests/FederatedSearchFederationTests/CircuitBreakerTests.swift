import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

/// The breaker's closed, open and half-open states, on an injected clock.
struct CircuitBreakerTests {
    let t0 = ContinuousClock.now

    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    /// A breaker with threshold 3, back-off 100 ms doubling up to 350 ms, opened at t = 0.
    func opened() -> CircuitBreaker {
        var b = CircuitBreaker(failureThreshold: 3, baseBackoff: .milliseconds(100), maxBackoff: .milliseconds(350))
        for _ in 0..<3 { b.record(success: false, now: at(0)) }
        return b
    }

    @Test func closedAllowsAndASuccessResetsTheCount() {
        var b = CircuitBreaker(failureThreshold: 3)
        #expect(b.admit(now: at(0)) == .allow)
        b.record(success: false, now: at(0))
        b.record(success: false, now: at(0))
        #expect(b.consecutiveFailures == 2 && b.state == .closed)
        b.record(success: true, now: at(0))
        #expect(b.consecutiveFailures == 0)
        b.record(success: false, now: at(0))
        b.record(success: false, now: at(0))
        #expect(b.state == .closed && b.admit(now: at(0)) == .allow)
    }

    @Test func thresholdConsecutiveFailuresOpenForTheBaseBackoff() {
        var b = opened()
        #expect(b.state == .open(until: at(100)))
        #expect(b.consecutiveFailures == 3)
        #expect(b.admit(now: at(50)) == .skip(until: at(100)))
        #expect(b.admit(now: at(99)) == .skip(until: at(100)))
    }

    @Test func afterTheBackoffExactlyOneProbeGoes() {
        var b = opened()
        #expect(b.admit(now: at(100)) == .probe)
        #expect(b.state == .halfOpen)
        #expect(b.admit(now: at(101)) == .skip(until: at(100) + .seconds(10)))
        #expect(b.admit(now: at(5000)) == .skip(until: at(100) + .seconds(10)))
    }

    @Test func aSuccessfulProbeClosesAndResets() {
        var b = opened()
        _ = b.admit(now: at(100))
        b.record(success: true, now: at(110))
        #expect(b.state == .closed && b.consecutiveFailures == 0 && b.backoff == .milliseconds(100))
        #expect(b.admit(now: at(111)) == .allow)
        for _ in 0..<3 { b.record(success: false, now: at(200)) }
        #expect(b.state == .open(until: at(300)))
    }

    @Test func failedProbesDoubleTheBackoffUpToTheMaximum() {
        var b = opened()
        var now = 100
        for expected in [200, 350, 350] {
            #expect(b.admit(now: at(now)) == .probe)
            b.record(success: false, now: at(now + 5))
            #expect(b.state == .open(until: at(now + 5 + expected)))
            #expect(b.admit(now: at(now + 5 + expected - 1)) == .skip(until: at(now + 5 + expected)))
            now += 5 + expected
        }
        #expect(b.backoff == .milliseconds(350))
    }

    @Test func anUnansweredProbeIsGivenUpAfterTheProbeTimeoutOrWhenAbandoned() {
        var b = CircuitBreaker(failureThreshold: 1, baseBackoff: .milliseconds(100), probeTimeout: .milliseconds(500))
        b.record(success: false, now: at(0))
        #expect(b.admit(now: at(100)) == .probe)
        #expect(b.admit(now: at(599)) == .skip(until: at(600)))
        #expect(b.admit(now: at(600)) == .probe)
        b.abandonProbe()
        #expect(b.admit(now: at(601)) == .probe)
        #expect(b.admit(now: at(602)) == .skip(until: at(1101)))
    }

    @Test func resultsRecordedWhileOpenAreIgnored() {
        var b = opened()
        b.record(success: true, now: at(10))
        b.record(success: false, now: at(20))
        #expect(b.state == .open(until: at(100)) && b.consecutiveFailures == 3)
    }

    @Test func thresholdAndMaximumAreSanitised() {
        let b = CircuitBreaker(failureThreshold: 0, baseBackoff: .seconds(2), maxBackoff: .seconds(1))
        #expect(b.failureThreshold == 1 && b.maxBackoff == .seconds(2))
    }

    @Test func json() {
        var b = opened()
        #expect(
            JSONWriter.string(.object(b.json(now: at(40))))
                == #"{"state":"open","consecutiveFailures":3,"backoffMs":100,"suspendedForMs":60}"#)
        _ = b.admit(now: at(100))
        #expect(
            JSONWriter.string(.object(b.json(now: at(100))))
                == #"{"state":"halfOpen","consecutiveFailures":3,"backoffMs":100}"#)
        b.record(success: true, now: at(100))
        #expect(
            JSONWriter.string(.object(b.json(now: at(100))))
                == #"{"state":"closed","consecutiveFailures":0,"backoffMs":100}"#)
    }
}
