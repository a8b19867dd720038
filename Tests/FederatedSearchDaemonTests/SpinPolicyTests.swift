import Testing
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

/// The event loop's decision to poll before sleeping.
struct SpinPolicyTests {
    @Test func pollsWhileWindowsCatchEvents() {
        var p = SpinPolicy()
        for _ in 0..<1000 {
            let polls = p.shouldPoll()
            #expect(polls)
            p.caught()
            p.caught()
            p.missed()  // a burst of two requests, then a pause
        }
    }

    @Test func stopsAfterMissesAndProbesOneWakeUpInSixteen() {
        var p = SpinPolicy()
        var polls = 0
        for _ in 0..<1600 {
            if p.shouldPoll() {
                polls += 1
                p.missed()
            }
        }
        // A few misses turn polling off (the score starts full), then only the probes poll.
        #expect(polls > 100 && polls < 100 + 10, "\(polls) polls")
        #expect(p.score < SpinPolicy.full / 2)
    }

    @Test func aProbeThatCatchesTurnsPollingBackOn() {
        var p = SpinPolicy()
        while p.score >= SpinPolicy.full / 2 { p.missed() }
        var wakeUps = 0
        while !p.shouldPoll() { wakeUps += 1 }
        #expect(wakeUps == SpinPolicy.probeEvery - 1)
        for _ in 0..<4 { p.caught() }  // the client is sending back to back again
        p.missed()
        let again = p.shouldPoll()
        #expect(again)
    }

    @Test func aRunningSearchIsPolledForOnlyWhilePollingIsOn() {
        var p = SpinPolicy()
        let whileOn = p.shouldPoll(searching: true)
        #expect(whileOn)
        while p.score >= SpinPolicy.full / 2 { p.missed() }
        let score = p.score
        for _ in 0..<100 {
            let polls = p.shouldPoll(searching: true)
            #expect(!polls)
        }
        #expect(p.score == score)
        // Wake-ups while searching do not count toward the idle probe.
        var wakeUps = 0
        while !p.shouldPoll() { wakeUps += 1 }
        #expect(wakeUps == SpinPolicy.probeEvery - 1)
    }

    @Test func scoreStaysInRange() {
        var p = SpinPolicy()
        for _ in 0..<100 { p.caught() }
        #expect(p.score == SpinPolicy.full)
        for _ in 0..<100 { p.missed() }
        #expect(p.score == 0)
    }
}
