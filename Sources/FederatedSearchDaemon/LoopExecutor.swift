import FederatedSearchEventLoop
import FederatedSearchServer

/// A task executor that runs jobs on the loop thread, between socket events.
///
/// A query on an in-memory index takes a few microseconds; handing it to the global pool and
/// its frames back costs two cross-core wake-ups, each more than the search. Tasks
/// created with this executor as their preference stay on the loop thread: still Swift tasks
/// (cancellable, structured), but no thread hop (and their frames reach the connection
/// without going through the inbox, see ``LoopBound``).
/// The loop uses it only for requests whose every source is in memory and fast (see
/// ``QueryPlacement``); anything that waits on I/O runs on the global executor.
final class LoopExecutor: TaskExecutor {
    private let inbox: Inbox

    init(inbox: Inbox) { self.inbox = inbox }

    func enqueue(_ job: consuming ExecutorJob) {
        inbox.post(.job(UnownedJob(job)))
    }

    /// Runs one job; called by the loop when it drains the inbox.
    func run(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedTaskExecutor())
    }
}
