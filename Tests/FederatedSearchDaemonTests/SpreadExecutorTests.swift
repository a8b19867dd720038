import Foundation
import Synchronization
import Testing
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

/// The spread threads run every job handed to them, whether a job
/// comes while they poll or after they went to sleep.
struct SpreadExecutorTests {
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    @Test func runsEveryJobWhetherPollingOrAsleep() async {
        let executor = SpreadExecutor(threads: 2, window: .microseconds(200))
        defer { executor.stop() }
        let ran = Counter()
        for burst in 0..<20 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<(burst % 5 + 1) {
                    group.addTask(executorPreference: executor) { ran.add() }
                }
            }
            // Every third burst after a pause longer than the window: the threads sleep.
            if burst % 3 == 2 { try? await Task.sleep(for: .milliseconds(2)) }
        }
        let expected = (0..<20).reduce(0) { $0 + $1 % 5 + 1 }
        #expect(ran.count == expected)
        // Each ran as a job of the executor's threads (a child task with an executor
        // preference may run elsewhere only if it suspends, and these do not).
        #expect(executor.jobCount == expected)
    }

    @Test func withoutAWindowTheThreadsOnlySleep() async {
        let executor = SpreadExecutor(threads: 1, window: .zero)
        defer { executor.stop() }
        let ran = Counter()
        for _ in 0..<10 {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: executor) { ran.add() }
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(ran.count == 10)
        #expect(executor.jobCount == 10)
        #expect(executor.pollCounts.windows == 0)
    }
}
