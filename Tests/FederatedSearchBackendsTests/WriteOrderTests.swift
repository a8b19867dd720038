import Testing
import Foundation
@testable import FederatedSearchBackends
import FederatedSearchProtocol

@Suite struct WriteOrderNumberingTests {
    @Test func batchNumbersGrowByOneAndStartAboveThoseOfAnEarlierStart() {
        let before = WriteOrder()
        let start = before.acknowledged
        let numbers = (0..<3).map { _ in before.nextSequence() }
        #expect(numbers == [start + 1, start + 2, start + 3])
        #expect(before.acknowledged == start + 3)
        usleep(50)  // batches take round trips to the engine: more than a microsecond each
        let restarted = WriteOrder()  // as the daemon's next start makes it
        #expect(restarted.acknowledged > numbers.last!)
        #expect(restarted.acknowledged < 1 << 53, "a JSON number carries it exactly")
    }
}
