#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent

/// What an ``EventHTTPServer`` tells its owner, on the loop thread.
public protocol EventHTTPServerDelegate: AnyObject {
    /// A connection was accepted (told at the end of the loop turn, once evhttp has set its
    /// socket): before its first request, it is known only by its socket.
    func httpAccepted(socket: Int32)
    /// A request arrived whole.
    func httpReceived(_ request: HTTPServerRequest)
    /// A response whose completion was asked for (``HTTPServerRequest/notifyWhenSent(to:)``) was sent whole.
    func httpSent(_ request: HTTPServerRequest)
    /// A chunk sent with ``HTTPServerRequest/send(_:notifying:)`` was written to the socket.
    func httpStepWritten(on connection: HTTPServerConnection)
    /// evhttp is freeing a watched connection (see ``EventHTTPServer/watch(_:)``).
    func httpConnectionClosed(_ connection: HTTPServerConnection)
    /// A watched connection's output buffer grew (positive) or drained (negative).
    func httpOutputChanged(by delta: Int)
    /// Bytes arrived on a watched connection.
    func httpInputArrived(on connection: HTTPServerConnection)
}

/// libevent's HTTP server (evhttp) on a loop: listening sockets, connections and requests,
/// behind the few operations the daemon's HTTP listener needs. Loop thread only.
public final class EventHTTPServer {
    private var http: OpaquePointer?
    unowned let delegate: any EventHTTPServerDelegate
    /// Listening sockets, each with its evhttp handle.
    private var bound: [OpaquePointer] = []
    /// Buffer events made for connections just accepted (one reference held on each), looked
    /// at once evhttp has given them their socket, in the same loop turn.
    private var arriving: [OpaquePointer] = []
    private var admitEvent: LoopEvent?
    /// Watched connections by their input buffer (for its callback).
    var byInput: [OpaquePointer: HTTPServerConnection] = [:]

    /// A server on `base` that takes GET, POST, HEAD, PUT, DELETE, OPTIONS and PATCH, refuses
    /// bodies past `maxBodyBytes` and header blocks past `maxHeaderBytes` itself (its own 413),
    /// and closes connections idle for `idleTimeoutSeconds` (nil: never).
    public init(
        on base: EventBase, maxBodyBytes: Int, maxHeaderBytes: Int, idleTimeoutSeconds: Int?,
        delegate: any EventHTTPServerDelegate
    ) throws(SystemCallError) {
        guard let server = evhttp_new(base.pointer) else { throw SystemCallError(call: "evhttp_new", errno: errno) }
        http = server
        self.delegate = delegate
        let methods =
            EVHTTP_REQ_GET.rawValue | EVHTTP_REQ_POST.rawValue | EVHTTP_REQ_HEAD.rawValue | EVHTTP_REQ_PUT.rawValue
            | EVHTTP_REQ_DELETE.rawValue | EVHTTP_REQ_OPTIONS.rawValue | EVHTTP_REQ_PATCH.rawValue
        evhttp_set_allowed_methods(server, UInt16(methods))
        evhttp_set_max_body_size(server, maxBodyBytes)
        evhttp_set_max_headers_size(server, maxHeaderBytes)
        if let idleTimeoutSeconds { evhttp_set_timeout(server, Int32(max(1, idleTimeoutSeconds))) }
        // Safe: evhttp is freed with this object (or before, by shutDown()), and with it every
        // connection and request whose callbacks get this object back.
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(server, onHTTPRequest, context)
        evhttp_set_bevcb(server, onHTTPAccepted, context)
        admitEvent = LoopEvent(on: base, .trigger) { [unowned self] in admitArrivals() }
    }

    deinit { shutDown() }

    /// Listens on a TCP host and port.
    public func bind(host: String, port: UInt16) throws(SystemCallError) {
        guard let http, let handle = evhttp_bind_socket_with_handle(http, host, port) else {
            throw SystemCallError(call: "bind(\(host):\(port))", errno: errno)
        }
        Self.disableNagle(evhttp_bound_socket_get_fd(handle))
        adopt(handle)
    }

    /// Serves a listening socket made elsewhere (systemd's, or a Unix socket).
    public func accept(socket fd: Int32) throws(SystemCallError) {
        Self.disableNagle(fd)
        guard let http, let handle = evhttp_accept_socket_with_handle(http, fd) else {
            throw SystemCallError(call: "evhttp_accept_socket", errno: errno)
        }
        adopt(handle)
    }

    private func adopt(_ handle: OpaquePointer) {
        if let l = evhttp_bound_socket_get_listener(handle) { AcceptBackoff.watch(l) }
        bound.append(handle)
    }

    /// Responses go out as soon as they are written (accepted sockets inherit the option
    /// from the listening one on Linux); a Unix socket ignores it.
    private static func disableNagle(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Stops accepting connections (a drain); requests of open ones are still answered.
    public func stopAccepting() {
        for b in bound { if let l = evhttp_bound_socket_get_listener(b) { AcceptBackoff.forget(l) } }
        if let http { for b in bound { evhttp_del_accept_socket(http, b) } }
        bound.removeAll()
    }

    /// Frees evhttp, every connection and the requests it still holds (their close callbacks
    /// run now, while the loop is still alive).
    public func shutDown() {
        guard let http else { return }
        for b in bound { if let l = evhttp_bound_socket_get_listener(b) { AcceptBackoff.forget(l) } }
        bound.removeAll()
        self.http = nil
        evhttp_free(http)
        for bev in arriving { bufferevent_decref(bev) }
        arriving = []
    }

    /// A connection just accepted: its buffer event is looked at once evhttp has set its socket.
    func accepted(_ bev: OpaquePointer) {
        bufferevent_incref(bev)
        arriving.append(bev)
        if arriving.count == 1 { admitEvent?.activate() }
    }

    private func admitArrivals() {
        let list = arriving
        arriving = []
        for bev in list {
            // The reference held keeps the socket open while the delegate looks at it.
            let fd = bufferevent_getfd(bev)
            if fd >= 0 { delegate.httpAccepted(socket: fd) }
            bufferevent_decref(bev)
        }
    }

    /// Tells the delegate of the connection's closing and of every change in its buffers,
    /// until it closes (see ``unwatch(_:)``).
    public func watch(_ connection: HTTPServerConnection) -> HTTPConnectionWatch {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let bev = evhttp_connection_get_bufferevent(connection.pointer)
        let output = bev.flatMap { bufferevent_get_output($0) }
        let input = bev.flatMap { bufferevent_get_input($0) }
        let watch = HTTPConnectionWatch(
            output: output, outputCounter: output.flatMap { evbuffer_add_cb($0, onHTTPOutputChange, context) },
            input: input, inputCounter: input.flatMap { evbuffer_add_cb($0, onHTTPInputChange, context) })
        if let input { byInput[input] = connection }
        evhttp_connection_set_closecb(connection.pointer, onHTTPConnectionClosed, context)
        return watch
    }

    /// Stops a watch (the connection is closing); the bytes its output buffer still holds.
    public func unwatch(_ watch: HTTPConnectionWatch) -> Int {
        if let input = watch.input {
            if let c = watch.inputCounter { evbuffer_remove_cb_entry(input, c) }
            byInput[input] = nil
        }
        guard let output = watch.output else { return 0 }
        if let c = watch.outputCounter { evbuffer_remove_cb_entry(output, c) }
        return evbuffer_get_length(output)
    }
}

/// A watched connection's buffer callbacks (see ``EventHTTPServer/watch(_:)``).
public struct HTTPConnectionWatch {
    let output: OpaquePointer?
    let outputCounter: OpaquePointer?
    let input: OpaquePointer?
    let inputCounter: OpaquePointer?

    /// Bytes in the output buffer when the watch began (queued before: a `100 Continue`).
    public var outputLength: Int { output.map { evbuffer_get_length($0) } ?? 0 }
}
