import CLibpq
import FederatedSearchCore
import Foundation
import Synchronization

/// A table's change notifications: a connection of its own, on a thread of its own, that
/// `LISTEN`s on the configured channel and calls back for each `NOTIFY` a trigger sends (the
/// notifications that arrive together, once). The connection is made again after a failure,
/// waiting longer each time (up to ``maxBackoff``), and each (re)connection calls back too:
/// changes made while it was not listening would otherwise be missed.
final class PostgresChangeFeed: ChangeWatch {
    /// The longest wait between two connection attempts.
    static let maxBackoff: Duration = .seconds(30)
    /// How often the thread looks whether it was stopped while no notification comes.
    static let slice: Int32 = 200

    private let stopped = Mutex(false)
    /// Why the last attempt failed (nil while listening), for the source's freshness.
    let lastError = Mutex<String?>(nil)

    /// Starts listening on `channel` through a connection of `connectionString`.
    init(connectionString: String, channel: SQLIdentifier, changed: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in listen(connectionString, channel, changed) }
        thread.name = "fedsearch-pgl"  // Linux keeps at most 15 bytes of a thread name
        thread.start()
    }

    func stop() { stopped.withLock { $0 = true } }

    var problem: String? { lastError.withLock { $0 } }

    private var isStopped: Bool { stopped.withLock { $0 } }

    private func listen(_ connectionString: String, _ channel: SQLIdentifier, _ changed: @escaping @Sendable () -> Void) {
        var backoff: Duration = .milliseconds(250)
        while !isStopped {
            do {
                let connection = try PGConnection(connectionString)
                _ = try connection.execute(SQLStatement(text: "LISTEN \(channel.quoted)"), deadline: .now + .seconds(10)) {
                    self.isStopped
                }
                lastError.withLock { $0 = nil }
                backoff = .milliseconds(250)
                if !isStopped { changed() }
                while !isStopped {
                    if try connection.notifications(waitingUpTo: Self.slice) > 0, !isStopped { changed() }
                }
                return
            } catch {
                lastError.withLock { $0 = "\(error)" }
            }
            // Waits before the next attempt, in slices so that a stop is not held up.
            let retry = ContinuousClock.now + backoff
            while !isStopped, ContinuousClock.now < retry { Thread.sleep(forTimeInterval: 0.1) }
            backoff = min(backoff * 2, Self.maxBackoff)
        }
    }
}

extension PGConnection {
    /// Waits up to `timeout` milliseconds for notifications, and takes every one that came:
    /// how many. Throws when the connection failed.
    func notifications(waitingUpTo timeout: Int32) throws(SearchError) -> Int {
        try waitReadable(timeout: timeout)
        guard consumeInput() else { throw SearchError(.backendError, "PostgreSQL connection failed while listening") }
        var count = 0
        while let n = nextNotification() {
            PQfreemem(n)
            count += 1
        }
        return count
    }
}
