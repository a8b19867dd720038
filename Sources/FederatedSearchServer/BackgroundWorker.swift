import CGlibcExtras
import Dispatch
import Foundation
import Synchronization

/// A thread of its own that runs jobs one at a time in the order they were queued, at a
/// lower CPU priority (nice 10): index rebuilds and the decoding of big write batches run
/// here, so on a busy machine they yield the cores to the loop and the searches. A thread of
/// its own, not a dispatch queue, because an unprivileged process may lower a thread's
/// priority but not raise it back, and dispatch reuses its threads for other work.
package final class BackgroundWorker: Sendable {
    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let wakeUp = DispatchSemaphore(value: 0)

    /// The nice value of the worker threads.
    package static let niceValue: Int32 = 10

    /// Starts the thread (it lives as long as the process: workers are few and long-lived).
    package init(name: String) {
        let thread = Thread { [self] in
            _ = fedsearch_set_thread_nice(Self.niceValue)
            while true {
                wakeUp.wait()
                let job = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                job?()
            }
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job.
    package func async(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.append(job) }
        wakeUp.signal()
    }

    /// The worker that applies the writes of every durable index.
    package static let writer = BackgroundWorker(name: "fedsearchd-write")

    /// The workers that merge the segments of durable indices updated in place: small
    /// segments, and the long merges into a new base (so those never hold up the small).
    package static let merger = BackgroundWorker(name: "fedsearchd-merge")
    package static let baseMerger = BackgroundWorker(name: "fedsearchd-merge-base")

    /// The worker that decodes long request lines.
    package static let decoder = BackgroundWorker(name: "fedsearchd-decode")
}
