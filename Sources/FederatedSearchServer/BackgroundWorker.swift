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
    private struct Jobs {
        var queued: [@Sendable () -> Void] = []
        var stopped = false
    }
    private let jobs = Mutex(Jobs())
    private let wakeUp = DispatchSemaphore(value: 0)

    /// The nice value of the worker threads.
    package static let niceValue: Int32 = 10

    /// Starts the thread; it runs until ``stop()`` (the shared workers: as long as the process).
    package init(name: String) {
        let thread = Thread { [self] in
            _ = fedsearch_set_thread_nice(Self.niceValue)
            while true {
                wakeUp.wait()
                let (job, stopped) = jobs.withLock { j in (j.queued.isEmpty ? nil : j.queued.removeFirst(), j.stopped) }
                if let job { job() } else if stopped { return }
            }
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job.
    package func async(_ job: @escaping @Sendable () -> Void) {
        jobs.withLock { $0.queued.append(job) }
        wakeUp.signal()
    }

    /// Ends the thread once the jobs queued before have run.
    package func stop() {
        jobs.withLock { $0.stopped = true }
        wakeUp.signal()
    }

    /// The workers that merge the segments of durable indices updated in place: small
    /// segments, and the long merges into a new base (so those never hold up the small).
    package static let merger = BackgroundWorker(name: "fedsearchd-merge")
    package static let baseMerger = BackgroundWorker(name: "fedsearchd-merge-base")

    /// The worker that decodes long request lines.
    package static let decoder = BackgroundWorker(name: "fedsearchd-decode")
}
