import FederatedSearchProtocol
import Synchronization

/// The keystrokes of browser sessions: a federated request with a `session` and a `seq`
/// supersedes the older ones of its session, which are cancelled on the server as on the
/// socket. Over HTTP each keystroke may come on another connection, so the table is the
/// listener's, and a session is scoped by the API key that sent it.
package final class HTTPSessions: Sendable {
    /// A running request of a session.
    package final class Ticket: Sendable {
        let seq: Int
        private struct State {
            var superseded = false
            /// The request's own `done` went out: nothing may follow it.
            var ended = false
            var cancel: (@Sendable () -> Void)?
        }
        private let state = Mutex(State())
        init(seq: Int) { self.seq = seq }

        /// Whether a newer request of the session replaced this one.
        package var isSuperseded: Bool { state.withLock { $0.superseded } }

        /// Hands `line` to `emit` unless the request was superseded; `isLast` marks its `done`.
        /// Decided under the ticket's lock, so a request superseded meanwhile ends with either
        /// its own `done` or ``endSuperseded(_:)``'s, never both.
        package func forward(_ line: OutgoingLine, isLast: Bool, _ emit: (OutgoingLine) -> Void) {
            state.withLock { s in
                guard !s.superseded, !s.ended else { return }
                if isLast { s.ended = true }
                emit(line)
            }
        }

        /// Ends a superseded request with `done` (the line given) if its own did not go out.
        package func endSuperseded(_ done: OutgoingLine, _ emit: (OutgoingLine) -> Void) {
            state.withLock { s in
                guard s.superseded, !s.ended else { return }
                s.ended = true
                emit(done)
            }
        }

        /// Gives the ticket the way to cancel its work (at once if already superseded).
        package func attach(_ cancel: @escaping @Sendable () -> Void) {
            let now = state.withLock { s -> Bool in
                if s.superseded { return true }
                s.cancel = cancel
                return false
            }
            // Outside the lock: cancelling may run the task's handlers.
            if now { cancel() }
        }

        func supersede() {
            let cancel = state.withLock { s -> (@Sendable () -> Void)? in
                s.superseded = true
                defer { s.cancel = nil }
                return s.cancel
            }
            cancel?()
        }
    }

    private struct Entry {
        var latest: Int
        var running: [Ticket]
    }
    private let table = Mutex<[String: Entry]>([:])
    /// Sessions remembered at most (past it, an idle one is forgotten for each new one).
    private let capacity: Int

    package init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Starts request `seq` of `session` (scoped by `scope`): nil if a newer one of the session
    /// has started already (this one is superseded before it runs), else its ticket; the
    /// older running ones are superseded.
    package func begin(scope: String, session: String, seq: Int) -> Ticket? {
        let key = scope + "\u{0}" + session
        var older: [Ticket] = []
        let ticket: Ticket? = table.withLock { t in
            var entry = t[key] ?? Entry(latest: Int.min, running: [])
            guard seq >= entry.latest else { return nil }
            let ticket = Ticket(seq: seq)
            older = entry.running.filter { $0.seq < seq }
            entry.running.removeAll { $0.seq < seq }
            entry.running.append(ticket)
            entry.latest = seq
            if t[key] == nil, t.count >= capacity, let idle = t.first(where: { $0.value.running.isEmpty })?.key {
                t[idle] = nil
            }
            t[key] = entry
            return ticket
        }
        for o in older { o.supersede() }
        return ticket
    }

    /// The request of `ticket` ended.
    package func end(scope: String, session: String, _ ticket: Ticket) {
        let key = scope + "\u{0}" + session
        table.withLock { t in t[key]?.running.removeAll { $0 === ticket } }
    }
}
