import Testing
@testable import FederatedSearchServer

/// ``SearchAdmission`` without a socket: start, queue or refuse, limit by limit.
@Suite struct SearchAdmissionTests {
    func facts(
        inFlight: Int = 0, running: Int = 0, queued: Int = 0, overBudget: Bool = false, dequeued: Bool = false
    ) -> SearchAdmission.Facts {
        .init(
            inFlightOnConnection: inFlight, maxPerConnection: 4, running: running, queued: queued, maxRunning: 2,
            maxQueued: 3, outputOverBudget: overBudget, dequeued: dequeued)
    }

    @Test func aSearchStartsWhileTheDaemonHasRoom() {
        #expect(SearchAdmission.decide(facts()) == .start)
        #expect(SearchAdmission.decide(facts(inFlight: 3, running: 1)) == .start)
    }

    @Test func pastTheDaemonsLimitOrBudgetOrBehindOthersItQueues() {
        #expect(SearchAdmission.decide(facts(running: 2)) == .queue)
        #expect(SearchAdmission.decide(facts(overBudget: true)) == .queue)
        #expect(SearchAdmission.decide(facts(queued: 1)) == .queue, "first come, first served")
    }

    /// The reason, if `verdict` refuses.
    func refusal(_ verdict: SearchAdmission.Verdict) -> String? {
        if case .refuse(let why) = verdict { return why }
        return nil
    }

    @Test func onlyPastTheQueuesBoundIsOneRefused() throws {
        let why = try #require(refusal(SearchAdmission.decide(facts(running: 2, queued: 3))), "not refused")
        #expect(why.contains("limits.maxQueuedSearches"))
        let mine = try #require(refusal(SearchAdmission.decide(facts(inFlight: 4))), "not refused")
        #expect(mine.contains("limits.maxRequestsPerConnection"))
    }

    @Test func aDequeuedSearchNeverQueuesAgain() {
        #expect(SearchAdmission.decide(facts(inFlight: 4, running: 2, queued: 3, overBudget: true, dequeued: true)) == .start)
    }
}
