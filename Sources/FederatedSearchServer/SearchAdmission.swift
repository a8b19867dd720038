/// Whether a search (or facet value search) may start now: the daemon-wide rules of
/// back-pressure in one pure decision, with no socket and no loop. The transport supplies the
/// counts and carries out the verdict (starts the search, queues it, or sends the refusal).
package enum SearchAdmission {
    /// What the transport knows when a search is read.
    package struct Facts: Equatable {
        /// The connection's searches running or queued.
        package var inFlightOnConnection: Int
        package var maxPerConnection: Int
        /// The daemon's searches running, and waiting in its queue.
        package var running: Int
        package var queued: Int
        package var maxRunning: Int
        package var maxQueued: Int
        /// Clients hold more unread output than `limits.maxTotalPendingOutputBytes`.
        package var outputOverBudget: Bool
        /// The search waited its turn in the queue already, and a slot was freed for it.
        package var dequeued: Bool

        package init(
            inFlightOnConnection: Int, maxPerConnection: Int, running: Int, queued: Int, maxRunning: Int, maxQueued: Int,
            outputOverBudget: Bool, dequeued: Bool
        ) {
            self.inFlightOnConnection = inFlightOnConnection
            self.maxPerConnection = maxPerConnection
            self.running = running
            self.queued = queued
            self.maxRunning = maxRunning
            self.maxQueued = maxQueued
            self.outputOverBudget = outputOverBudget
            self.dequeued = dequeued
        }
    }

    package enum Verdict: Equatable {
        case start
        /// Wait in the daemon's FIFO queue until a slot frees.
        case queue
        /// `too_many_requests`, with the message saying which limit.
        case refuse(String)
    }

    /// The decision. A dequeued search never queues again. A connection's own limit is kept
    /// by the transport holding its next search unread; the check here only guards that.
    /// Searches queue while the daemon runs its maximum, while clients hold too much unread
    /// output, or while others wait before them (first come, first served); only past
    /// `maxQueued` waiting is one refused.
    package static func decide(_ f: Facts) -> Verdict {
        if f.dequeued { return .start }
        if f.inFlightOnConnection >= f.maxPerConnection {
            return .refuse("\(f.maxPerConnection) searches are already in flight on this connection (limits.maxRequestsPerConnection)")
        }
        guard f.running >= f.maxRunning || f.outputOverBudget || f.queued > 0 else { return .start }
        guard f.queued >= f.maxQueued else { return .queue }
        return .refuse(
            "the daemon is running its maximum of \(f.maxRunning) searches (limits.maxRunningSearches) "
                + "and \(f.queued) more wait (limits.maxQueuedSearches); retry shortly")
    }
}
