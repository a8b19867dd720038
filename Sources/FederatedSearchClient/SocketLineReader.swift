#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// Reads newline-terminated lines from a connected socket: the one reading loop of the client
/// module, used by ``DaemonConnection``'s reader thread and by the blocking `SocketConnection`
/// of the tests (`SocketTestClient`, hence `package`).
///
/// Received bytes land in one reused buffer; `storage[start..<end]` is what has not been read
/// yet. The socket is read straight into the room after `end` (answers are tens of KiB, and
/// copying each through a second buffer showed in the benchmark's figures). It does not own
/// the descriptor: whoever made it closes it.
package struct SocketLineReader {
    package let fd: Int32
    package private(set) var storage = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    /// How long one wait for input may take (-1: no limit).
    let timeoutMilliseconds: Int32
    /// How long a read polls the socket before sleeping in poll(2) (0: it sleeps at once).
    let busyPoll: Duration
    /// A failure ``receiveWaiting()`` met, thrown by the next ``nextLine()`` once the lines
    /// received before it are read.
    private var failed: Failure?

    /// A failure reading the socket (errno's text) or a timeout.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package init(fd: Int32, timeoutMilliseconds: Int32 = -1, busyPoll: Duration = .zero) {
        self.fd = fd
        self.timeoutMilliseconds = timeoutMilliseconds
        self.busyPoll = busyPoll
    }

    /// Finds the next line, receiving as needed, and consumes it: its range in `storage`,
    /// valid until the next call. Nil at end of stream.
    package mutating func nextLine() throws(Failure) -> Range<Int>? {
        var scanned = 0  // bytes after `start` known to hold no newline (`start` may move)
        while true {
            if let nl = newline(from: start + scanned) {
                let line = start..<nl
                start = nl + 1
                return line
            }
            if let failed { throw failed }
            scanned = end - start
            if busyPoll > .zero {
                switch try pollBriefly() {
                case true?: continue
                case nil: return nil
                case false?: break
                }
            }
            // Waiting in poll(2) for input only, not in recv(2): a blocked recv is also woken
            // each time the daemon frees a request it read (write space, which this side never
            // waits for), and on a VM that spurious wake-up is an inter-processor interrupt
            // sent from the daemon's thread while it is answering.
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready: Int32
            do { ready = try systemCall { poll(&p, 1, timeoutMilliseconds) } } catch { throw Failure(description: "poll: \(error)") }
            if ready == 0 { throw Failure(description: "timed out waiting for the daemon") }
            let n: Int
            do { n = try systemCall { receive(flags: 0) } } catch  where error.wouldBlock {
                throw Failure(description: "timed out waiting for the daemon")
            } catch {
                throw Failure(description: "recv: \(error)")
            }
            if n == 0 { return nil }
        }
    }

    /// The next line if it has been received whole already, consumed (as ``nextLine()``
    /// does); nil without reading the socket otherwise.
    mutating func bufferedLine() -> Range<Int>? {
        guard let nl = newline(from: start) else { return nil }
        let line = start..<nl
        start = nl + 1
        return line
    }

    /// Receives what the socket holds now, without waiting: true if some bytes came. An end
    /// of stream is met again by the next ``nextLine()``; an error (reported once by the
    /// socket) is kept for it to throw.
    mutating func receiveWaiting() -> Bool {
        do {
            return try systemCall { receive(flags: Int32(MSG_DONTWAIT)) } > 0
        } catch {
            if !error.wouldBlock { failed = Failure(description: "recv: \(error)") }
            return false
        }
    }

    /// One `recv` into the room after `end` (made first: unread bytes move to the front, and
    /// the buffer doubles when a line outgrows it). Returns what recv(2) returned.
    private mutating func receive(flags: Int32) -> Int {
        if storage.count - end < 1 << 14 {
            if start > 0 {
                storage.removeSubrange(0..<start)
                storage.append(contentsOf: repeatElement(0, count: start))
                end -= start
                start = 0
            }
            if storage.count - end < 1 << 14 { storage += [UInt8](repeating: 0, count: storage.count) }
        }
        let (fd, end) = (fd, end)
        let n = storage.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress! + end, raw.count - end, flags) }
        if n > 0 { self.end += n }
        return n
    }

    /// Asks the socket for input without sleeping until some arrives or `busyPoll` passes:
    /// true when some was received, false when none came, nil at end of stream; an error (a
    /// reset connection) is thrown as the sleeping read would.
    private mutating func pollBriefly() throws(Failure) -> Bool? {
        let clock = ContinuousClock()
        let until = clock.now.advanced(by: busyPoll)
        repeat {
            do {
                let n = try systemCall { receive(flags: Int32(MSG_DONTWAIT)) }
                return n > 0 ? true : nil
            } catch  where !error.wouldBlock {
                throw Failure(description: "recv: \(error)")
            } catch {}
        } while clock.now < until
        return false
    }

    /// The index of the first newline in `storage[from..<end]` (memchr: answers are tens of
    /// KiB, and a byte-by-byte scan would cost more than the socket). The pointer stays inside
    /// the closure.
    private func newline(from: Int) -> Int? {
        guard from < end else { return nil }
        return storage.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress, let hit = memchr(base + from, 0x0A, end - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
    }
}

/// Writes all of `bytes` to the socket `fd` (retrying after EINTR; no SIGPIPE). Returns
/// errno's text on failure.
package func sendAll(_ bytes: [UInt8], to fd: Int32) -> String? {
    var offset = 0
    return sendBytes(bytes, from: &offset, to: fd, blocking: true)
}

/// Sends `bytes[offset...]`, moving `offset` past what was sent; errno's text on failure.
/// Without `blocking`, stops (with no error) when the socket's buffer is full.
func sendBytes(_ bytes: [UInt8], from offset: inout Int, to fd: Int32, blocking: Bool) -> String? {
    let flags = Int32(MSG_NOSIGNAL) | (blocking ? 0 : Int32(MSG_DONTWAIT))
    while offset < bytes.count {
        // The pointer lives only for the call; `offset < count` keeps it inside the buffer.
        let start = offset
        do {
            offset += try systemCall { bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + start, $0.count - start, flags) } }
        } catch {
            return !blocking && error.wouldBlock ? nil : error.description
        }
    }
    return nil
}
