import Foundation
import Synchronization
import Testing
import FederatedSearchEventLoop

/// A loop-bound reference hands its object out on the thread that created it and nowhere else.
struct LoopBoundTests {
    final class Box {}

    final class Seen: Sendable {
        let onOtherThread = Mutex<Bool?>(nil)
    }

    @Test func givesTheObjectOnlyOnItsOwnThread() {
        let box = Box()
        let bound = LoopBound(box)
        #expect(bound.onLoopThread === box)
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            seen.onOtherThread.withLock { $0 = bound.onLoopThread != nil }
            done.signal()
        }
        thread.start()
        done.wait()
        #expect(seen.onOtherThread.withLock { $0 } == false)
        #expect(bound.onLoopThread === box)
    }
}
