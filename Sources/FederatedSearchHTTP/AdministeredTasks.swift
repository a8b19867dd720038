import Foundation
import Synchronization

/// The task ids given for index administration (deleting, copying, moving an index). Such an
/// operation answers once it is done, so each task is published when given; ids count up from
/// the daemon's start time in milliseconds, so they never meet an index's own batch numbers
/// of this run, and a client's `wait_for_task` on the index (even one now deleted) finds them.
package final class AdministeredTasks: Sendable {
    private struct State {
        var next: Int64
        var given: Set<Int64> = []
    }
    private let state = Mutex(State(next: Int64(Date().timeIntervalSince1970 * 1000) * 1000))

    package init() {}

    /// A new task id, published.
    package func give() -> Int64 {
        state.withLock { s in
            s.next += 1
            s.given.insert(s.next)
            return s.next
        }
    }

    /// Whether `id` is one given here.
    package func contains(_ id: Int64) -> Bool { state.withLock { $0.given.contains(id) } }
}
