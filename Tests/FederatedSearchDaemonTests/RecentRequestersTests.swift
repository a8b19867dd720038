import Testing
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

/// One client is alone only while the latest searches all came from its connection.
struct RecentRequestersTests {
    /// Records the searches in order; returns each answer.
    func record(_ r: inout RecentRequesters, _ ids: [UInt64]) -> [Bool] {
        ids.map { r.record($0) }
    }

    @Test func aloneUntilAnotherConnectionSearches() {
        var r = RecentRequesters()
        #expect(record(&r, [1, 1]) == [true, true])
        // A second client: neither is alone while the other's search is in the window.
        #expect(record(&r, [2, 1]) == [false, false])
        // After a full window of searches from connection 1 only, it is alone again.
        let rest = record(&r, Array(repeating: 1, count: RecentRequesters.window - 1))
        #expect(rest.dropLast().allSatisfy { !$0 })
        #expect(rest.last == true)
    }

    @Test func clientsTakingTurnsAreNeverAlone() {
        var r = RecentRequesters()
        _ = r.record(1)
        #expect(record(&r, (0..<40).map { UInt64(2 + $0 % 4) }).allSatisfy { !$0 })
    }
}
