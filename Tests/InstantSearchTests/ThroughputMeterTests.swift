import Testing
import FederatedSearchClient

/// The import progress line's rate and ETA: measured over recent acknowledgments, so a slow
/// first one (connecting, the daemon's one-time work) does not make the first ETA far off.
struct ThroughputMeterTests {
    @Test func aSlowFirstBatchDoesNotSkewTheRate() throws {
        var meter = ThroughputMeter()
        // The first 1,000 documents are acknowledged after 2 s; then 1,000 every 0.1 s.
        meter.record(done: 1000, at: 2.0)
        #expect(meter.rate == nil, "one sample gives no rate")
        #expect(meter.secondsLeft(total: 100_000) == nil)
        for i in 1...5 { meter.record(done: 1000 + 1000 * i, at: 2.0 + 0.1 * Double(i)) }
        let rate = try #require(meter.rate)
        #expect(abs(rate - 10_000) < 1, "\(rate)")
        // 94,000 left at 10,000/s; averaged from the start it would have said about 36 s.
        let left = try #require(meter.secondsLeft(total: 100_000))
        #expect(abs(left - 9.4) < 0.01, "\(left)")
    }

    /// Acknowledgments that arrive as one burst at first (a write group answering many
    /// batches at once) do not count as done in no time.
    @Test func aBurstOfFirstAcknowledgmentsIsOneSample() throws {
        var meter = ThroughputMeter()
        for i in 1...50 { meter.record(done: 1000 * i, at: 1.0 + 0.0001 * Double(i)) }  // 50 batches in 5 ms
        for i in 1...10 { meter.record(done: 50_000 + 1000 * i, at: 1.005 + 0.1 * Double(i)) }  // then 10,000/s
        let rate = try #require(meter.rate)
        #expect(abs(rate - 10_000) < 1, "\(rate)")
    }

    @Test func theRateFollowsTheRecentWindow() throws {
        var meter = ThroughputMeter(window: 1)
        for i in 0...20 { meter.record(done: 100 * i, at: 0.1 * Double(i)) }  // 1,000/s for 2 s
        for i in 1...20 { meter.record(done: 2000 + 500 * i, at: 2.0 + 0.1 * Double(i)) }  // then 5,000/s
        let rate = try #require(meter.rate)
        #expect(abs(rate - 5000) < 1, "\(rate)")
    }
}
