import Testing
@testable import FederatedSearchDaemon

@Suite("Memory budget")
struct MemoryBudgetTests {
    @Test func outputOverTheLimitIsOverUntilItIsRead() {
        var budget = MemoryBudget()
        budget.outputChanged(by: 1000)
        #expect(budget.isOver(999))
        #expect(!budget.isOver(1000))
        budget.outputChanged(by: -600)
        #expect(!budget.isOver(999))
        #expect(budget.pendingOutputBytes == 400)
    }

    @Test func aLargeBurstIsTrimmedOnceItIsReadWhole() {
        var budget = MemoryBudget()
        budget.outputChanged(by: MemoryBudget.trimAfterPeakBytes)
        #expect(!budget.outputTrimDue, "nothing to trim while the burst is unread")
        budget.outputChanged(by: -(MemoryBudget.trimAfterPeakBytes - 1))
        #expect(!budget.outputTrimDue, "one byte still unread")
        budget.outputChanged(by: -1)
        #expect(budget.outputTrimDue)
        budget.outputTrimmed()
        #expect(!budget.outputTrimDue, "once per burst")
    }

    @Test func aSmallBurstIsNotTrimmed() {
        var budget = MemoryBudget()
        budget.outputChanged(by: MemoryBudget.trimAfterPeakBytes - 1)
        budget.outputChanged(by: -(MemoryBudget.trimAfterPeakBytes - 1))
        #expect(!budget.outputTrimDue)
    }

    @Test func streamedOutputCountsInThePendingTotal() {
        var budget = MemoryBudget()
        budget.outputChanged(by: 10)
        budget.streamedOutputChanged(by: 90)
        #expect(budget.pendingOutputBytes == 100)
        #expect(budget.streamedOutputBytes == 90)
        budget.streamedOutputChanged(by: -90)
        #expect(budget.pendingOutputBytes == 10)
        #expect(budget.streamedOutputBytes == 0)
    }

    @Test func aLargeAnswerDroppedIsTrimmedWhenNoOutputIsPending() {
        var budget = MemoryBudget()
        budget.outputChanged(by: 5)
        budget.largeAnswerDropped(bytes: MemoryBudget.trimAfterPeakBytes)
        #expect(!budget.outputTrimDue, "output still pending")
        budget.outputChanged(by: -5)
        #expect(budget.outputTrimDue)
        var small = MemoryBudget()
        small.largeAnswerDropped(bytes: MemoryBudget.trimAfterPeakBytes - 1)
        #expect(!small.outputTrimDue)
    }

    @Test func inputLetGoWholeAfterALargeBurstAsksForOneTrim() {
        var budget = MemoryBudget()
        let whileHeld = budget.inputChanged(by: MemoryBudget.trimAfterPeakBytes)
        let partlyLetGo = budget.inputChanged(by: -(MemoryBudget.trimAfterPeakBytes - 1))
        let wholeLetGo = budget.inputChanged(by: -1)
        let again = budget.inputChanged(by: 0)
        #expect(!whileHeld)
        #expect(!partlyLetGo)
        #expect(wholeLetGo)
        #expect(budget.pendingInputBytes == 0)
        #expect(!again, "once per burst")
    }
}

@Suite("Search slots")
struct SearchSlotsTests {
    @Test func waitingSearchesComeOutOldestFirstWhileASlotIsFree() {
        var slots = SearchSlots()
        for key in 1...3 as ClosedRange<UInt64> { slots.enqueue(connection: 7, key: key) { _, _ in true } }
        #expect(slots.queued == 3)
        #expect(slots.next(slotFree: false) == nil)
        #expect(slots.next(slotFree: true)?.key == 1)
        #expect(slots.next(slotFree: true)?.key == 2)
        #expect(slots.next(slotFree: true)?.key == 3)
        #expect(slots.next(slotFree: true) == nil)
    }

    @Test func staleEntriesAreDroppedOnceTheyOutnumberTheLiveOnes() {
        var slots = SearchSlots()
        // 1,100 searches queued and all but one dropped by their connections (which lower
        // `queued` as they drop them): the next enqueue compacts the queue to the live ones.
        for key in 0..<1100 as Range<UInt64> { slots.enqueue(connection: 1, key: key) { _, _ in true } }
        slots.queued = 1
        slots.enqueue(connection: 2, key: 0) { connection, key in connection == 1 && key == 500 }
        #expect(slots.next(slotFree: true)?.key == 500)
        #expect(slots.next(slotFree: true)?.connection == 2)
        #expect(slots.next(slotFree: true) == nil)
    }
}
