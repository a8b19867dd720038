/// The lifecycle of a client connection, with no socket: whether it reads, when it is
/// throttled, and how it closes (flush, then linger, then close). The loop tells it what
/// happened (an ``Event``) with what it sees now (``Facts``); it answers with the ``Action``s
/// to take, in order. The socket's `Connection` is the glue between this, the socket's
/// buffers and the protocol's ``ConnectionStateMachine``.
///
/// Closing never loses the last frame: closing a socket that still has unread input makes the
/// kernel reset it, and the client would never read it. So a connection asked to close first
/// sends everything queued (``Phase/closingAfterFlush``), then shuts down its sending side and
/// reads only to discard until the client closes or a second passes (``Phase/lingering``).
package struct ConnectionLifecycle: Equatable {
    package enum Phase: Equatable {
        /// Serving requests.
        case open
        /// Sending what is queued (and what is still to come) before lingering.
        case closingAfterFlush
        /// The sending side is shut down; input is read and thrown away until the client closes.
        case lingering
        /// The socket is closed: no event does anything any more.
        case closed
    }

    /// What the loop sees when an event comes.
    package struct Facts: Equatable {
        /// No answer is still to come: no search running, nothing off the loop, no line waiting.
        package var nothingToCome: Bool
        /// Everything queued has gone to the socket.
        package var allWritten: Bool
        /// New lines wait instead of being acted on (a big line being decoded, writes queued).
        package var linesMustWait: Bool
        /// The next line is a search held back by the connection's in-flight limit.
        package var searchHeld: Bool

        package init(nothingToCome: Bool, allWritten: Bool, linesMustWait: Bool = false, searchHeld: Bool = false) {
            self.nothingToCome = nothingToCome
            self.allWritten = allWritten
            self.linesMustWait = linesMustWait
            self.searchHeld = searchHeld
        }
    }

    package enum Event: Equatable {
        /// The client sent EOF; `hungUp`: it closed the socket (not only its sending side).
        case inputEnded(hungUp: Bool)
        /// The idle timer fired.
        case readTimedOut
        /// Close once everything queued has been written (a drain, an over-long line, idleness).
        case closeAfterFlush
        /// The output buffer drained to its low watermark.
        case outputDrained
        /// Bytes were queued: `pendingBytes` not yet taken by the socket.
        case queued(pendingBytes: Int)
        /// An answer ended: after the client's EOF, the connection may close once all is sent.
        case answered
        /// The reading state may have changed (lines must wait, or no longer).
        case readingMayChange
    }

    package enum Action: Equatable {
        /// Start or stop reading the socket.
        case setReading(Bool)
        /// Close the socket now, cancelling the connection's searches.
        case close
        /// Write callbacks from now on fire only once the output is empty.
        case watchForEmptyOutput
        /// Shut down the sending side, time out after a second of silence, and read to discard.
        case startLingering
        /// Act on the lines read and waiting (the client read its answers).
        case pump
    }

    package private(set) var phase: Phase = .open
    /// The client sent EOF.
    package private(set) var inputEnded = false
    /// Reading is paused because the client is not reading its answers.
    package private(set) var throttled = false
    /// The connection's output limit (`limits.maxPendingOutputBytes`).
    package let maxPendingOutputBytes: Int

    package init(maxPendingOutputBytes: Int) { self.maxPendingOutputBytes = maxPendingOutputBytes }

    /// Flushing or lingering: such a connection starts nothing new and does not count against
    /// `limits.maxConnections`.
    package var isClosing: Bool { phase != .open }

    /// The socket was closed (by an action of this machine or otherwise).
    package mutating func closed() { phase = .closed }

    /// Whether the socket should be read now.
    package func reads(_ facts: Facts) -> Bool {
        switch phase {
        case .lingering: true
        case .closingAfterFlush, .closed: false
        case .open: !(inputEnded || throttled || facts.linesMustWait || facts.searchHeld)
        }
    }

    /// The one transition: what to do about `event`, given `facts`.
    package mutating func handle(_ event: Event, _ facts: Facts) -> [Action] {
        guard phase != .closed else { return [] }
        switch event {
        case .inputEnded(let hungUp):
            inputEnded = true
            if phase == .lingering { return [.close] }
            // A client that shut down only its sending side still gets its answers; one that
            // closed the socket is gone.
            if hungUp {
                let flushing = handle(.closeAfterFlush, facts)
                return flushing.contains(.close) ? flushing : flushing + [.close]
            }
            return handle(.answered, facts)
        case .readTimedOut:
            // A connection waiting for its searches is not idle.
            if phase == .lingering || (facts.nothingToCome && facts.allWritten) { return [.close] }
            if facts.nothingToCome { return handle(.closeAfterFlush, facts) }
            return [.setReading(reads(facts))]
        case .closeAfterFlush:
            // Once is enough: asking again would pause and resume reading, which restarts a
            // lingering connection's timer.
            guard phase == .open else { return [] }
            phase = .closingAfterFlush
            var actions: [Action] = [.setReading(false), .watchForEmptyOutput]
            // With answers still queued or to come, the flush of the last of them lingers.
            if facts.allWritten, facts.nothingToCome { actions += linger() }
            return actions
        case .outputDrained:
            switch phase {
            case .closingAfterFlush: return facts.nothingToCome && facts.allWritten ? linger() : []
            case .lingering, .closed: return []
            case .open:
                guard throttled else { return [] }
                throttled = false
                // Then the reading state and the end of input again, with the facts after it.
                return [.pump]
            }
        case .queued(let pending):
            // A client that lets its answers pile up is not read (so it cannot ask for more);
            // what it asked before is answered behind them, never cut: the write timeout
            // closes it if it never reads.
            if pending > maxPendingOutputBytes, !throttled, phase != .lingering {
                throttled = true
                return [.setReading(reads(facts))]
            }
            return []
        case .answered:
            if inputEnded, facts.nothingToCome { return handle(.closeAfterFlush, facts) }
            return []
        case .readingMayChange:
            return [.setReading(reads(facts))]
        }
    }

    private mutating func linger() -> [Action] {
        guard phase != .lingering else { return [] }
        if inputEnded { return [.close] }
        phase = .lingering
        return [.startLingering]
    }
}
