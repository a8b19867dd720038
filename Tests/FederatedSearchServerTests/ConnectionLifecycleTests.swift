import Testing
@testable import FederatedSearchServer

/// ``ConnectionLifecycle`` without a socket: reading, throttling, and closing by flush, linger
/// and close, event by event.
@Suite struct ConnectionLifecycleTests {
    typealias Facts = ConnectionLifecycle.Facts
    let idle = Facts(nothingToCome: true, allWritten: true)
    let busy = Facts(nothingToCome: false, allWritten: true)
    let unsent = Facts(nothingToCome: true, allWritten: false)

    @Test func anOpenConnectionReadsUnlessItsLinesMustWaitOrASearchIsHeld() {
        let l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(l.reads(idle))
        #expect(!l.reads(Facts(nothingToCome: true, allWritten: true, linesMustWait: true)))
        #expect(!l.reads(Facts(nothingToCome: true, allWritten: true, searchHeld: true)))
    }

    @Test func aClientThatStopsReadingIsThrottledThenDisconnectedAndResumedWhenItReads() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(l.handle(.queued(pendingBytes: 100), busy) == [])
        #expect(l.handle(.queued(pendingBytes: 101), busy) == [.setReading(false)])
        #expect(l.throttled)
        #expect(l.handle(.queued(pendingBytes: 150), busy) == [], "throttled once")
        #expect(l.handle(.readingMayChange, busy) == [.setReading(false)])
        // More queued while throttled never cuts the connection.
        var slow = l
        #expect(slow.handle(.queued(pendingBytes: 500), busy) == [])
        #expect(slow.handle(.queued(pendingBytes: 5000), busy) == [])
        slow.closed()
        #expect(slow.handle(.outputDrained, idle) == [], "nothing after the close")
        // The output drained: reading resumes through the pump.
        #expect(l.handle(.outputDrained, busy) == [.pump])
        #expect(!l.throttled)
        #expect(l.handle(.readingMayChange, busy) == [.setReading(true)])
        #expect(l.handle(.outputDrained, busy) == [], "nothing to resume")
    }

    @Test func closingFlushesThenLingersThenCloses() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        // Answers still to come: stop reading, and wait for them.
        #expect(l.handle(.closeAfterFlush, busy) == [.setReading(false), .watchForEmptyOutput])
        #expect(l.phase == .closingAfterFlush)
        #expect(l.isClosing)
        #expect(l.handle(.closeAfterFlush, idle) == [], "asked once")
        #expect(l.handle(.outputDrained, busy) == [])
        // Drained with bytes still queued (a large answer's pieces copied since): not yet.
        #expect(l.handle(.outputDrained, unsent) == [])
        #expect(l.phase == .closingAfterFlush)
        // The last answer is written: linger, reading only to discard.
        #expect(l.handle(.outputDrained, idle) == [.startLingering])
        #expect(l.phase == .lingering)
        #expect(l.reads(idle))
        #expect(l.handle(.outputDrained, idle) == [])
        // The client closes, or its second of silence passes.
        var timedOut = l
        #expect(timedOut.handle(.readTimedOut, busy) == [.close])
        #expect(l.handle(.inputEnded(hungUp: false), idle) == [.close])
    }

    @Test func aClientThatClosedItsSendingSideGetsItsAnswersFirst() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        // EOF with a search running: keep the connection; stop reading (nothing more comes).
        #expect(l.handle(.inputEnded(hungUp: false), busy) == [])
        #expect(l.inputEnded)
        #expect(!l.reads(busy))
        #expect(l.handle(.answered, busy) == [])
        // The last answer is queued, then written: close without lingering (no input is left).
        #expect(l.handle(.answered, unsent) == [.setReading(false), .watchForEmptyOutput])
        #expect(l.handle(.outputDrained, idle) == [.close])
    }

    @Test func aClientThatHungUpIsClosedAtOnce() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(l.handle(.inputEnded(hungUp: true), busy) == [.setReading(false), .watchForEmptyOutput, .close])
        var quiet = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(quiet.handle(.inputEnded(hungUp: true), idle) == [.setReading(false), .watchForEmptyOutput, .close])
    }

    @Test func theIdleTimerSparesAConnectionWaitingForItsSearches() {
        var waiting = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(waiting.handle(.readTimedOut, busy) == [.setReading(true)])
        #expect(waiting.phase == .open)
        var done = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(done.handle(.readTimedOut, idle) == [.close])
        // Its last answer still unsent: closed once it is written.
        var last = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(last.handle(.readTimedOut, unsent) == [.setReading(false), .watchForEmptyOutput])
        #expect(last.handle(.outputDrained, idle) == [.startLingering])
    }

    @Test func anIdleConnectionAskedToCloseLingersAtOnce() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(l.handle(.closeAfterFlush, idle) == [.setReading(false), .watchForEmptyOutput, .startLingering])
    }

    @Test func closingTakesPrecedenceOverAThrottle() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        #expect(l.handle(.queued(pendingBytes: 101), busy) == [.setReading(false)])
        #expect(l.handle(.closeAfterFlush, busy) == [.setReading(false), .watchForEmptyOutput])
        #expect(l.handle(.outputDrained, idle) == [.startLingering], "lingers rather than pumps")
        // While lingering, output is not throttled.
        #expect(l.handle(.queued(pendingBytes: 500), idle) == [])
    }

    @Test func eventsWhileFlushing() {
        var l = ConnectionLifecycle(maxPendingOutputBytes: 100)
        _ = l.handle(.closeAfterFlush, busy)
        #expect(l.handle(.queued(pendingBytes: 101), busy) == [.setReading(false)])
        #expect(l.handle(.readTimedOut, busy) == [.setReading(false)])
        #expect(l.handle(.inputEnded(hungUp: true), busy) == [.close])
    }
}
