#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent
import FederatedSearchCore

/// What a ``BufferedSocket`` tells its owner, on the loop thread.
public protocol BufferedSocketHandler: AnyObject {
    /// Bytes arrived (see ``BufferedSocket/takeInputChunk(maxBytes:_:)``).
    func socketReadable()
    /// The output drained to the low watermark (see ``BufferedSocket/setWriteLowWatermark(_:)``).
    func socketWritable()
    /// The peer ended its input, a timeout passed, or the socket failed.
    func socketEvent(_ event: BufferedSocket.Event)
    /// The output buffer grew (positive) or drained (negative), once ``BufferedSocket/countOutput()`` is on.
    func socketOutputChanged(by delta: Int)
}

/// A connected socket with libevent's input and output buffers (a bufferevent): reading
/// into a buffer, writing what the socket does not take at once when it becomes writable,
/// timeouts and watermarks. Loop thread only.
public final class BufferedSocket {
    /// Why libevent called ``BufferedSocketHandler/socketEvent(_:)``.
    public enum Event {
        case failed, readTimedOut, writeTimedOut, endOfInput
    }

    private var bev: OpaquePointer?
    /// The output buffer's callback entry, while output is counted.
    private var outputCounter: OpaquePointer?
    fileprivate unowned let handler: any BufferedSocketHandler

    /// Takes `descriptor` (closed when freed) and reports to `handler`, which must outlive
    /// the socket or ``free()`` it first (it is held unowned). One write may send up to a megabyte (libevent's
    /// default of 16 KiB per writev made a 60 KiB answer take four loop turns).
    public init(on base: EventBase, descriptor: Int32, handler: any BufferedSocketHandler) throws(SystemCallError) {
        guard let bev = bufferevent_socket_new(base.pointer, descriptor, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            Glibc.close(descriptor)
            throw SystemCallError(call: "bufferevent_socket_new", errno: errno)
        }
        self.bev = bev
        self.handler = handler
        // Safe: the bufferevent, whose callbacks get this object back, is freed with it.
        bufferevent_setcb(bev, onSocketRead, onSocketWrite, onSocketEvent, Unmanaged.passUnretained(self).toOpaque())
        bufferevent_set_max_single_write(bev, 1 << 20)
        bufferevent_set_max_single_read(bev, 1 << 16)
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
    }

    deinit { free() }

    /// The socket's descriptor.
    public var descriptor: Int32 { bev.map { bufferevent_getfd($0) } ?? -1 }

    /// Bytes read from the socket and not yet taken.
    public var inputLength: Int { bev.map { evbuffer_get_length(bufferevent_get_input($0)) } ?? 0 }

    /// Bytes queued in libevent for the socket and not yet written.
    public var outputLength: Int { bev.map { evbuffer_get_length(bufferevent_get_output($0)) } ?? 0 }

    /// Hands `body` the first contiguous run of input (at most `maxBytes`) in place, then
    /// drops it from the input buffer; nil if there is none.
    ///
    /// Safe: the run belongs to the input buffer, which nothing touches while `body` copies
    /// from it; it is drained only after `body` returns, and `body` must not keep the pointer.
    public func takeInputChunk<R>(maxBytes: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard let bev else { return nil }
        let input = bufferevent_get_input(bev)
        var chunk = iovec()  // evbuffer_iovec is the native iovec on Linux
        guard evbuffer_peek(input, -1, nil, &chunk, 1) > 0, let base = chunk.iov_base, chunk.iov_len > 0 else { return nil }
        let n = min(chunk.iov_len, maxBytes)
        let result = body(UnsafeRawBufferPointer(start: base, count: n))
        evbuffer_drain(input, n)
        return result
    }

    /// Drops everything read so far.
    public func discardInput() {
        guard let bev else { return }
        let input = bufferevent_get_input(bev)
        evbuffer_drain(input, evbuffer_get_length(input))
    }

    /// Queues `bytes[offset...]` in libevent (a copy), which writes them when the socket is writable.
    public func queue(_ bytes: [UInt8], from offset: Int = 0) {
        guard let bev, offset < bytes.count else { return }
        _ = bytes.withUnsafeBytes { bufferevent_write(bev, $0.baseAddress! + offset, $0.count - offset) }
    }

    /// Queues `bytes` in libevent (a copy), which writes them when the socket is writable.
    public func queue(_ bytes: ArraySlice<UInt8>) {
        guard let bev, !bytes.isEmpty else { return }
        _ = bytes.withUnsafeBytes { bufferevent_write(bev, $0.baseAddress!, $0.count) }
    }

    /// Sends as much of `bytes[offset...]` as the socket takes now, without blocking; returns
    /// how many bytes it took (0 when it is full or failed: libevent then reports the error).
    public func sendNow(_ bytes: [UInt8], from offset: Int = 0) -> Int {
        let fd = descriptor
        var sent = offset
        while sent < bytes.count {
            let start = sent
            guard
                let n = try? systemCall({
                    bytes.withUnsafeBytes { send(fd, $0.baseAddress! + start, $0.count - start, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                }),
                n > 0
            else { break }
            sent += n
        }
        return sent - offset
    }

    /// Starts or stops reading from the socket.
    public func setReading(_ on: Bool) {
        guard let bev else { return }
        if on { bufferevent_enable(bev, Int16(EV_READ)) } else { bufferevent_disable(bev, Int16(EV_READ)) }
    }

    /// The idle (read) and write timeouts, in milliseconds; 0 leaves that direction without one.
    public func setTimeouts(readMs: Int, writeMs: Int) {
        guard let bev else { return }
        var read = Duration.milliseconds(readMs).timeval
        var write = Duration.milliseconds(writeMs).timeval
        // libevent copies the timevals; a null one leaves that direction without a timeout.
        withUnsafePointer(to: &read) { r in
            withUnsafePointer(to: &write) { w in
                _ = bufferevent_set_timeouts(bev, readMs > 0 ? r : nil, writeMs > 0 ? w : nil)
            }
        }
    }

    /// The write callback fires once the output drains to `bytes` (0: once it is empty).
    public func setWriteLowWatermark(_ bytes: Int) {
        if let bev { bufferevent_setwatermark(bev, Int16(EV_WRITE), bytes, 0) }
    }

    /// Shuts down the sending side: the client sees the end of the stream after what was sent.
    public func shutdownWriting() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Whether the client closed its socket (POLLHUP), rather than only its sending side.
    public var peerHungUp: Bool {
        var p = pollfd(fd: descriptor, events: 0, revents: 0)
        return poll(&p, 1, 0) > 0 && (Int32(p.revents) & Int32(POLLHUP)) != 0
    }

    /// From now on, the handler hears of every change in the output buffer's size.
    public func countOutput() {
        guard let bev, outputCounter == nil else { return }
        // Safe: the entry is removed in free(), before the buffer goes.
        outputCounter = evbuffer_add_cb(bufferevent_get_output(bev), onOutputChange, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Frees the bufferevent and closes the socket (no callback runs after it).
    public func free() {
        guard let bev else { return }
        if let outputCounter { evbuffer_remove_cb_entry(bufferevent_get_output(bev), outputCounter) }
        outputCounter = nil
        self.bev = nil
        bufferevent_free(bev)
    }
}

// C callbacks: the socket comes back through Unmanaged (it outlives its bufferevent).

private func handler(_ context: UnsafeMutableRawPointer?) -> any BufferedSocketHandler {
    Unmanaged<BufferedSocket>.fromOpaque(context!).takeUnretainedValue().handler
}

private func onSocketRead(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    handler(context).socketReadable()
}

private func onSocketWrite(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    handler(context).socketWritable()
}

private func onSocketEvent(_ bev: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    let events = Int32(events)
    let event: BufferedSocket.Event
    if events & BEV_EVENT_ERROR != 0 {
        event = .failed
    } else if events & BEV_EVENT_TIMEOUT != 0 {
        event = events & BEV_EVENT_WRITING != 0 ? .writeTimedOut : .readTimedOut
    } else if events & BEV_EVENT_EOF != 0 {
        event = .endOfInput
    } else {
        return
    }
    handler(context).socketEvent(event)
}

private func onOutputChange(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?) {
    guard let info else { return }
    handler(context).socketOutputChanged(by: info.pointee.n_added - info.pointee.n_deleted)
}
