#if canImport(Glibc)
import Glibc
#endif
import CLibevent
import FederatedSearchCore

/// A connection's libevent bufferevent: its socket, input and output buffers, timeouts and
/// watermarks, behind the few operations `Connection` needs. Every call into libevent's
/// buffer API for a connection is here but its creation (`EventLoop.accept` makes the
/// bufferevent and sets its callbacks); `Connection` keeps the protocol and the policy.
///
/// Loop thread only (libevent's bufferevents are not shared between threads here). A value:
/// copies name the same bufferevent, which ``free()`` ends.
struct SocketBuffers {
    private let bev: OpaquePointer

    init(_ bufferEvent: OpaquePointer) { bev = bufferEvent }

    /// The socket's descriptor.
    var descriptor: Int32 { bufferevent_getfd(bev) }

    /// Bytes read from the socket and not yet taken.
    var inputLength: Int { evbuffer_get_length(bufferevent_get_input(bev)) }

    /// Bytes queued in libevent for the socket and not yet written.
    var outputLength: Int { evbuffer_get_length(bufferevent_get_output(bev)) }

    /// Hands `body` the first contiguous run of input (at most `maxBytes`) in place, then
    /// drops it from the input buffer; nil if there is none.
    ///
    /// Safe: the run belongs to the input buffer, which nothing touches while `body` copies
    /// from it; it is drained only after `body` returns, and `body` must not keep the pointer.
    func takeInputChunk<R>(maxBytes: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let input = bufferevent_get_input(bev)
        var chunk = iovec()  // evbuffer_iovec is the native iovec on Linux
        guard evbuffer_peek(input, -1, nil, &chunk, 1) > 0, let base = chunk.iov_base, chunk.iov_len > 0 else { return nil }
        let n = min(chunk.iov_len, maxBytes)
        let result = body(UnsafeRawBufferPointer(start: base, count: n))
        evbuffer_drain(input, n)
        return result
    }

    /// Drops everything read so far.
    func discardInput() {
        let input = bufferevent_get_input(bev)
        evbuffer_drain(input, evbuffer_get_length(input))
    }

    /// Queues `bytes[offset...]` in libevent, which writes them when the socket is writable.
    func queue(_ bytes: [UInt8], from offset: Int = 0) {
        guard offset < bytes.count else { return }
        _ = bytes.withUnsafeBytes { bufferevent_write(bev, $0.baseAddress! + offset, $0.count - offset) }
    }

    /// Queues `bytes` in libevent (a copy), which writes them when the socket is writable.
    func queue(_ bytes: ArraySlice<UInt8>) {
        guard !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { bufferevent_write(bev, $0.baseAddress!, $0.count) }
    }

    /// Sends as much of `bytes[offset...]` as the socket takes now, without blocking; returns
    /// how many bytes it took (0 when it is full or failed: libevent then reports the error).
    func sendNow(_ bytes: [UInt8], from offset: Int = 0) -> Int {
        let fd = descriptor
        var sent = offset
        while sent < bytes.count {
            let start = sent
            guard let n = try? systemCall({ bytes.withUnsafeBytes { send(fd, $0.baseAddress! + start, $0.count - start, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) } }),
                n > 0
            else { break }
            sent += n
        }
        return sent - offset
    }

    /// Starts or stops reading from the socket.
    func setReading(_ on: Bool) {
        if on { bufferevent_enable(bev, Int16(EV_READ)) } else { bufferevent_disable(bev, Int16(EV_READ)) }
    }

    /// The idle (read) and write timeouts, in milliseconds; 0 leaves that direction without one.
    func setTimeouts(readMs: Int, writeMs: Int) {
        var read = EventLoop.timeval(.milliseconds(readMs))
        var write = EventLoop.timeval(.milliseconds(writeMs))
        // libevent copies the timevals; a null one leaves that direction without a timeout.
        withUnsafePointer(to: &read) { r in
            withUnsafePointer(to: &write) { w in
                _ = bufferevent_set_timeouts(bev, readMs > 0 ? r : nil, writeMs > 0 ? w : nil)
            }
        }
    }

    /// The write callback fires once the output drains to `bytes` (0: once it is empty).
    func setWriteLowWatermark(_ bytes: Int) { bufferevent_setwatermark(bev, Int16(EV_WRITE), bytes, 0) }

    /// Shuts down the sending side: the client sees the end of the stream after what was sent.
    func shutdownWriting() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Whether the client closed its socket (POLLHUP), rather than only its sending side.
    var peerHungUp: Bool {
        var p = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&p, 1, 0) > 0 && (Int32(p.revents) & Int32(POLLHUP)) != 0
    }

    /// Calls `callback` with `context` whenever the output buffer grows or drains; the entry
    /// must be removed with ``removeOutputCallback(_:)`` before ``free()``.
    func addOutputCallback(_ callback: evbuffer_cb_func, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        evbuffer_add_cb(bufferevent_get_output(bev), callback, context)
    }

    func removeOutputCallback(_ entry: OpaquePointer) { evbuffer_remove_cb_entry(bufferevent_get_output(bev), entry) }

    /// Frees the bufferevent and closes the socket.
    func free() { bufferevent_free(bev) }
}
