#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The socket of a ``DaemonConnection`` while it is open.
///
/// Sends hold `writeLock`, and the reader closes the descriptor holding
/// it too, so no send ever writes to a descriptor number reused after the close. Whether it
/// is closed is kept under `closedLock`, which no one holds across a send: a shutdown never
/// waits behind a write blocked on a full socket (the shutdown is what unblocks it).
final class DaemonLink: Sendable {
    let fd: Int32
    let writeLock = Mutex(())
    private let closedLock = Mutex(false)  // true once the descriptor is closed
    /// Lines handed to the writer queue and not yet written. The writer holds `writeLock`
    /// only while it writes a line it counts here, so a caller that sees none never waits
    /// behind a write blocked on a full socket.
    let queued = Atomic(0)
    init(fd: Int32) { self.fd = fd }

    /// What became of a line offered for writing on the caller's thread.
    enum Inline {
        case written
        /// The writer queue has lines ahead of it, or the socket's buffer is full: the
        /// rest (from `offset`) is for the writer.
        case queue(offset: Int)
        case failed(String)
    }

    /// Writes `line` at once if nothing waits in the writer queue and the socket takes it
    /// without blocking (the common case: no thread hand-off per request).
    func writeNow(_ line: [UInt8]) -> Inline {
        if queued.load(ordering: .acquiring) > 0 { return .queue(offset: 0) }
        return writeLock.withLock { _ in
            if isClosed { return .failed("the connection is closed") }
            var offset = 0
            if let failure = sendBytes(line, from: &offset, to: fd, blocking: false) { return .failed(failure) }
            return offset == line.count ? .written : .queue(offset: offset)
        }
    }

    /// Writes one line of the writer queue (from `offset`), blocking, then counts it
    /// written; errno's text on failure.
    func write(_ line: [UInt8], from offset: Int) -> String? {
        defer { queued.subtract(1, ordering: .releasing) }
        return writeLock.withLock { _ in
            if isClosed { return "the connection is closed" }
            var offset = offset
            return sendBytes(line, from: &offset, to: fd, blocking: true)
        }
    }

    /// Whether the descriptor is closed (read by a send holding `writeLock`, under which
    /// it cannot become closed).
    private var isClosed: Bool { closedLock.withLock { $0 } }

    func closeDescriptor() {
        writeLock.withLock { _ in
            closedLock.withLock { closed in
                if !closed { Glibc.close(fd) }
                closed = true
            }
        }
    }

    /// Ends both directions (the reader then sees the end, and a blocked send fails),
    /// unless already closed: the number may belong to another socket by then.
    func shutDown() {
        closedLock.withLock { closed in
            if !closed { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }
}
