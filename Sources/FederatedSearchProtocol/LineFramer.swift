/// Splits a byte stream into newline-terminated lines, enforcing a maximum line length.
///
/// Pure: the daemon feeds it what the socket delivered and acts on what it returns, so the
/// framing rules are tested without a socket. A `\r` before the newline is dropped, so
/// clients that send CRLF work too; blank lines are skipped (a client may send them to keep
/// its connection alive).
public struct LineFramer: Sendable {
    /// What feeding bytes produced.
    public enum Event: Equatable, Sendable {
        case line([UInt8])
        /// A line passed the limit; the rest of the stream cannot be framed reliably.
        case lineTooLong(length: Int)
    }

    public let maxLineBytes: Int
    private var pending: [UInt8] = []
    private var failed = false

    public init(maxLineBytes: Int) { self.maxLineBytes = maxLineBytes }

    /// Bytes received but not yet part of a complete line.
    public var pendingCount: Int { pending.count }

    /// Drops the unfinished line and frames nothing more (the connection is being closed).
    public mutating func abandon() {
        pending = []
        failed = true
    }

    /// Adds received bytes and returns the complete lines (and at most one over-long error,
    /// after which the framer stops producing lines).
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
        guard !failed else { return [] }
        var events: [Event] = []
        var start = pending.count
        pending.append(contentsOf: bytes)
        var lineStart = 0
        while let nl = pending[start...].firstIndex(of: 0x0A) {
            var end = nl
            if end > lineStart, pending[end - 1] == 0x0D { end -= 1 }
            if end - lineStart > maxLineBytes {
                failed = true
                events.append(.lineTooLong(length: end - lineStart))
                pending = []
                return events
            }
            // A blank line (empty, or JSON whitespace only) is no request: it gets no answer.
            if pending[lineStart..<end].contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
                events.append(.line(Array(pending[lineStart..<end])))
            }
            lineStart = nl + 1
            start = lineStart
        }
        pending.removeFirst(lineStart)
        // A trailing `\r` may be the first half of a CRLF whose `\n` has not arrived yet: it
        // is not part of the line, so a line exactly at the limit is not refused for it.
        let partialLength = pending.last == 0x0D ? pending.count - 1 : pending.count
        if partialLength > maxLineBytes {
            failed = true
            events.append(.lineTooLong(length: pending.count))
            pending = []
        }
        return events
    }
}
