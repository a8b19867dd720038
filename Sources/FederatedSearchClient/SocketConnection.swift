#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchProtocol

/// A blocking connection to fedsearchd's Unix socket that sends request lines and reads
/// frames. One connection may carry many pipelined requests; frames carry their request id.
///
/// Not thread-safe: use one connection per thread (or per task, from one task at a time).
public final class SocketConnection {
    private let fd: Int32
    /// Received bytes: `storage[start..<end]` is what has not been read yet. The socket is
    /// read straight into the room after `end`, and the buffer is reused for the whole
    /// connection (answers are tens of KiB; copying each through a second buffer showed in
    /// the benchmark's figures).
    private var storage = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0
    /// How long one wait for input may take (-1: no limit).
    private let timeoutMilliseconds: Int32
    /// How long a read polls the socket before sleeping in poll(2) (0: it sleeps at once).
    private let busyPoll: Duration

    /// An error talking to the daemon.
    public struct ConnectionError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Connects to the socket at `path`; `timeoutSeconds` bounds each read (0: no limit).
    ///
    /// With `busyPollMicros` above 0, a read that finds nothing keeps asking the socket for
    /// that long before it sleeps (as the daemon does before its loop sleeps): the answer is
    /// taken as soon as it lands, without the wake-up of a sleeping thread, which costs tens
    /// of microseconds on a virtual machine, at the price of a busy core while waiting. For
    /// a client on its own core that waits for each answer; with more busy threads than
    /// cores it steals time from the daemon.
    public init(path: String, timeoutSeconds: Int = 0, busyPollMicros: Int = 0) throws {
        let fd: Int32
        do { fd = try UnixSocketTransport.connect(path: path) } catch {
            throw ConnectionError(description: "\(error.description) (is fedsearchd running?)")
        }
        if timeoutSeconds > 0 {
            var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        self.fd = fd
        self.timeoutMilliseconds = timeoutSeconds > 0 ? Int32(clamping: timeoutSeconds * 1000) : -1
        self.busyPoll = .microseconds(max(0, busyPollMicros))
    }

    deinit { close(fd) }

    /// Sends one request (a JSON object) as a line.
    public func send(_ request: JSONValue) throws {
        var line = JSONWriter.bytes(request)
        line.append(0x0A)
        try sendRaw(line)
    }

    /// Sends raw bytes (tests use it to send malformed input).
    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConnectionError(description: "send: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Shuts down the sending side (the daemon still answers what was sent).
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads the next line, or nil at end of stream.
    public func readLine() throws -> [UInt8]? {
        guard let line = try nextLine() else { return nil }
        return Array(storage[line])
    }

    /// Reads the next line but returns only its first `count` bytes (all of a shorter line),
    /// or nil at end of stream: for a client that routes frames by their first members (`id`,
    /// `type`) without copying answers of tens of KiB.
    public func readLinePrefix(_ count: Int) throws -> [UInt8]? {
        guard let line = try nextLine() else { return nil }
        return Array(storage[line.lowerBound..<min(line.upperBound, line.lowerBound + max(0, count))])
    }

    /// Finds the next line, receiving as needed, and consumes it: its range in `storage`,
    /// valid until the next call. Nil at end of stream.
    private func nextLine() throws -> Range<Int>? {
        var scanned = 0  // bytes after `start` known to hold no newline (`start` may move)
        while true {
            if let nl = newline(from: start + scanned) {
                let line = start..<nl
                start = nl + 1
                return line
            }
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
            let ready = poll(&p, 1, timeoutMilliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw ConnectionError(description: "poll: \(String(cString: strerror(errno)))")
            }
            if ready == 0 { throw ConnectionError(description: "timed out waiting for the daemon") }
            let n = receive(flags: 0)
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { throw ConnectionError(description: "timed out waiting for the daemon") }
                throw ConnectionError(description: "recv: \(String(cString: strerror(errno)))")
            }
            if n == 0 { return nil }
        }
    }

    /// One `recv` into the room after `end` (made first: unread bytes move to the front, and
    /// the buffer doubles when a line outgrows it). Returns what recv(2) returned.
    private func receive(flags: Int32) -> Int {
        if storage.count - end < 1 << 14 {
            if start > 0 {
                storage.removeSubrange(0..<start)
                storage.append(contentsOf: repeatElement(0, count: start))
                end -= start
                start = 0
            }
            if storage.count - end < 1 << 14 { storage += [UInt8](repeating: 0, count: storage.count) }
        }
        let n = storage.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress! + end, raw.count - end, flags) }
        if n > 0 { end += n }
        return n
    }

    /// Asks the socket for input without sleeping until some arrives or `busyPoll` passes:
    /// true when some was received, false when none came, nil at end of stream; an error (a
    /// reset connection) is thrown as the sleeping read would.
    private func pollBriefly() throws -> Bool? {
        let clock = ContinuousClock()
        let until = clock.now.advanced(by: busyPoll)
        repeat {
            let n = receive(flags: Int32(MSG_DONTWAIT))
            if n > 0 { return true }
            if n == 0 { return nil }
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                throw ConnectionError(description: "recv: \(String(cString: strerror(errno)))")
            }
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

    /// Reads and decodes the next frame, or nil at end of stream.
    public func readFrame() throws -> Frame? {
        guard let line = try readLine() else { return nil }
        return try FrameDecoder.decode(line)
    }

    /// Sends a request and reads frames with its id until the frame that ends it: `done` for a
    /// search, the answer itself for other ops, or a request-level `error`.
    public func roundTrip(_ request: JSONValue, onFrame: (Frame) throws -> Void = { _ in }) throws -> [Frame] {
        try send(request)
        let id = request.objectValue?["id"]?.stringValue
        var frames: [Frame] = []
        while let frame = try readFrame() {
            guard frame.id == id else { continue }
            frames.append(frame)
            try onFrame(frame)
            if Self.endsRequest(frame) { return frames }
        }
        throw ConnectionError(description: "the daemon closed the connection before answering")
    }

    /// Whether `frame` is the last frame of its request.
    public static func endsRequest(_ frame: Frame) -> Bool {
        switch frame {
        case .results, .merged: return false
        case .error(_, let index, _): return index == nil
        default: return true
        }
    }
}
