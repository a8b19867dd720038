#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// A blocking connection to fedsearchd's Unix socket that sends request lines and reads
/// frames. One connection may carry many pipelined requests; frames carry their request id.
///
/// Not thread-safe: use one connection per thread (or per task, from one task at a time).
public final class SocketConnection {
    private let fd: Int32
    private var reader: SocketLineReader

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
        self.reader = SocketLineReader(
            fd: fd, timeoutMilliseconds: timeoutSeconds > 0 ? Int32(clamping: timeoutSeconds * 1000) : -1,
            busyPoll: .microseconds(max(0, busyPollMicros)))
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
        if let failure = sendAll(bytes, to: fd) { throw ConnectionError(description: "send: \(failure)") }
    }

    /// Shuts down the sending side (the daemon still answers what was sent).
    public func finishSending() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads the next line, or nil at end of stream.
    public func readLine() throws -> [UInt8]? {
        guard let line = try nextLine() else { return nil }
        return Array(reader.storage[line])
    }

    /// Reads the next line but returns only its first `count` bytes (all of a shorter line),
    /// or nil at end of stream: for a client that routes frames by their first members (`id`,
    /// `type`) without copying answers of tens of KiB.
    public func readLinePrefix(_ count: Int) throws -> [UInt8]? {
        guard let line = try nextLine() else { return nil }
        return Array(reader.storage[line.lowerBound..<min(line.upperBound, line.lowerBound + max(0, count))])
    }

    /// The next line's range in the reader's buffer, or nil at end of stream.
    private func nextLine() throws -> Range<Int>? {
        do { return try reader.nextLine() } catch { throw ConnectionError(description: error.description) }
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
        let id = try? RequestID.decode(request.objectValue?["id"], path: "id")
        var frames: [Frame] = []
        while let frame = try readFrame() {
            guard frame.id == id else { continue }
            frames.append(frame)
            try onFrame(frame)
            if Self.endsRequest(frame) { return frames }
        }
        throw ConnectionError(description: "the daemon closed the connection before answering")
    }

    /// Whether `frame` is the last frame of its request (``Frame/endsRequest``).
    public static func endsRequest(_ frame: Frame) -> Bool { frame.endsRequest }
}
