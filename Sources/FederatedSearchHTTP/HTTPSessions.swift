import FederatedSearchCore
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

    /// How far a request's `seq` may pass its session's latest: a session is one client's
    /// keystrokes, and one `seq` far ahead would make every later request of it superseded.
    package static let maxSeqJump = 1 << 40

    /// What starting a request of a session came to.
    package enum Begin {
        /// It runs, with this ticket; the older running requests of its session are superseded.
        case started(Ticket)
        /// A newer request of its session has started already: it is superseded before it runs.
        case superseded
        /// Its `seq` jumps more than ``maxSeqJump`` past the session's latest.
        case refused(SearchError)
    }

    /// Starts request `seq` of `session` (scoped by `scope`: the key and the client's address,
    /// so that no other client can supersede its requests).
    package func begin(scope: String, session: String, seq: Int) -> Begin {
        let key = scope + "\u{0}" + session
        var older: [Ticket] = []
        let outcome: Begin = table.withLock { t in
            var entry = t[key] ?? Entry(latest: Int.min, running: [])
            guard seq >= entry.latest else { return .superseded }
            if entry.latest != Int.min, seq - entry.latest > Self.maxSeqJump {
                return .refused(SearchError(.invalidField, "seq: \(seq) jumps more than 2^40 past the session's latest (\(entry.latest))"))
            }
            let ticket = Ticket(seq: seq)
            older = entry.running.filter { $0.seq < seq }
            entry.running.removeAll { $0.seq < seq }
            entry.running.append(ticket)
            entry.latest = seq
            if t[key] == nil, t.count >= capacity, let idle = t.first(where: { $0.value.running.isEmpty })?.key {
                t[idle] = nil
            }
            t[key] = entry
            return .started(ticket)
        }
        for o in older { o.supersede() }
        return outcome
    }

    /// The request of `ticket` ended.
    package func end(scope: String, session: String, _ ticket: Ticket) {
        let key = scope + "\u{0}" + session
        table.withLock { t in t[key]?.running.removeAll { $0 === ticket } }
    }
}
