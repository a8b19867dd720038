#if canImport(Glibc)
import Glibc
import FederatedSearchServer
#endif
import Dispatch
import Foundation
import Synchronization

/// The threads that run the sources a spread fan-out hands off (see `FanOut.InlineMode.spread`):
/// a few, one per core beyond the loop's, which after each job keep looking for the next one
/// for a while before they sleep.
///
/// A spread hands sources to other threads while the loop runs the slowest itself; if those
/// threads sleep, each hand-off first wakes one, which costs as much as a small search on
/// these virtual machines (an inter-processor interrupt and a halted vCPU resuming),
/// and the global executor's threads always sleep when idle. These threads poll instead while
/// polling pays off, with the loop's rule (``SpinPolicy``): the windows in which the thread
/// took a job keep it on, those in which it did not turn it off, and one idle wake-up in 16
/// probes. Keystrokes spaced out therefore cost no polling, while a client that waits for
/// each answer finds a thread awake. A polling thread yields its core at each look, so a
/// client thread woken on that core runs at once.
final class SpreadExecutor: TaskExecutor, Sendable {
    /// The most threads it runs: a spread hands out one job per source but the slowest, and
    /// requests name a few sources.
    static let maxThreads = 3
    /// The window as a multiple of `busyPollMicros`: the loop's window starts again at each
    /// event, while a spread thread's spans the whole time until the next spread request.
    static let windowFactor = 3

    private struct Queue {
        var jobs: [UnownedJob] = []
        var head = 0
        mutating func pop() -> UnownedJob? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
            return job
        }
    }

    private let queue = Mutex(Queue())
    /// Jobs queued and not yet taken, changed under the queue's lock and read without it by
    /// polling and sleeping threads.
    private let pending = Atomic<Int>(0)
    /// Threads asleep or about to sleep on `wakeUp`.
    private let sleepers = Atomic<Int>(0)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let threadCount: Int
    /// How long a thread polls after its last job before it sleeps.
    private let window: Duration
    /// Polling windows taken, and those in which the thread took a job (`stats.polling`'s
    /// `spreadWindows` and `spreadCaught`).
    private let counts = Mutex((windows: 0, caught: 0))
    /// Jobs taken to run so far (counted before each runs, so that whoever a job's end
    /// resumes sees it counted).
    private let jobsRun = Atomic<Int>(0)

    /// Starts `threads` threads that poll up to `window` for the next job once polling pays.
    init(threads: Int, window: Duration) {
        self.window = window
        threadCount = threads
        for _ in 0..<threads { Thread { [self] in work() }.start() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        queue.withLock { q in
            q.jobs.append(unowned)
            pending.add(1, ordering: .sequentiallyConsistent)
        }
        // Sequentially consistent with the sleeper's own store then check: either it sees this
        // job before sleeping, or this post sees it sleeping and wakes it.
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 { wakeUp.signal() }
    }

    /// Polling windows taken so far, and those that took a job.
    var pollCounts: (windows: Int, caught: Int) { counts.withLock { $0 } }

    /// How many jobs the threads have taken to run.
    var jobCount: Int { jobsRun.load(ordering: .relaxed) }

    /// Lets the threads end once the jobs already queued have run (tests; the daemon's run
    /// until the process ends).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        for _ in 0..<threadCount { wakeUp.signal() }
    }

    private func take() -> UnownedJob? {
        guard pending.load(ordering: .sequentiallyConsistent) > 0 else { return nil }
        return queue.withLock { q in
            let job = q.pop()
            if job != nil { pending.subtract(1, ordering: .sequentiallyConsistent) }
            return job
        }
    }

    private func run(_ job: UnownedJob) {
        jobsRun.add(1, ordering: .relaxed)
        job.runSynchronously(on: asUnownedTaskExecutor())
    }

    /// A thread's life: run jobs; when none is left, poll for the next one while the policy
    /// says it pays, else sleep until one is posted.
    private func work() {
        var policy = SpinPolicy()
        let clock = ContinuousClock()
        while true {
            if let job = take() {
                run(job)
                continue
            }
            if stopped.load(ordering: .sequentiallyConsistent) { return }
            if window > .zero, policy.shouldPoll() {
                let until = clock.now + window
                var taken: UnownedJob? = nil
                while taken == nil && clock.now < until {
                    // Another thread may take the job first: only a job taken counts.
                    if pending.load(ordering: .relaxed) > 0, let job = take() {
                        taken = job
                    } else {
                        sched_yield()
                    }
                }
                counts.withLock {
                    $0.windows += 1
                    if taken != nil { $0.caught += 1 }
                }
                if let taken {
                    policy.caught()
                    run(taken)
                    continue
                }
                policy.missed()
            }
            sleepers.add(1, ordering: .sequentiallyConsistent)
            if pending.load(ordering: .sequentiallyConsistent) == 0 && !stopped.load(ordering: .sequentiallyConsistent) {
                wakeUp.wait()
            }
            sleepers.subtract(1, ordering: .sequentiallyConsistent)
        }
    }
}
