#if canImport(Glibc)
import Glibc
#endif
internal import CEventHTTPVersion
internal import CLibevent

/// A request evhttp has read whole, until its response is sent (evhttp then frees it, or
/// with its connection). Loop thread only; a handle, so copies name the same request.
public struct HTTPServerRequest: Hashable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Its connection; nil once the connection has gone (a response cut short).
    public var connection: HTTPServerConnection? { evhttp_request_get_connection(pointer).map(HTTPServerConnection.init) }

    /// `GET`, `POST`, `HEAD`, `PUT`, `DELETE`, `OPTIONS` or `PATCH` (the methods the server allows).
    public var method: String? {
        switch evhttp_request_get_command(pointer) {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: nil
        }
    }

    /// The request target: the path with its query string.
    public var target: String { evhttp_request_get_uri(pointer).map { String(cString: $0) } ?? "/" }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        guard let input = evhttp_request_get_input_headers(pointer), let v = evhttp_find_header(input, name) else { return nil }
        return String(cString: v)
    }

    /// Every header, in order, as sent.
    public var headerFields: [(name: String, value: String)] {
        guard let headers = evhttp_request_get_input_headers(pointer) else { return [] }
        var fields: [(name: String, value: String)] = []
        var entry = headers.pointee.tqh_first
        while let e = entry {
            fields.append((e.pointee.key.map { String(cString: $0) } ?? "", e.pointee.value.map { String(cString: $0) } ?? ""))
            entry = e.pointee.next.tqe_next
        }
        return fields
    }

    /// The HTTP version of its request line.
    public var version: (major: Int, minor: Int) {
        var major: Int32 = 0
        var minor: Int32 = 0
        fedsearch_evhttp_request_version(pointer, &major, &minor)
        return (Int(major), Int(minor))
    }

    /// The body, moved out of libevent's buffer.
    public func takeBody() -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(pointer) else { return [] }
        let n = evbuffer_get_length(input)
        guard n > 0 else { return [] }
        var body = [UInt8](repeating: 0, count: n)
        _ = body.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, n) }
        return body
    }

    /// Adds a response header.
    public func addHeader(_ name: String, _ value: String) {
        if let headers = evhttp_request_get_output_headers(pointer) { evhttp_add_header(headers, name, value) }
    }

    /// Sends a whole response (evhttp sets Content-Length and frees the request after).
    public func reply(status: Int, body: [UInt8]) {
        if !body.isEmpty, let out = evhttp_request_get_output_buffer(pointer) { evbuffer_add(out, body, body.count) }
        evhttp_send_reply(pointer, Int32(status), nil, nil)
    }

    /// Starts a response sent in chunks (or in steps, with a Content-Length header).
    public func startReply(status: Int) { evhttp_send_reply_start(pointer, Int32(status), nil) }

    /// Sends one chunk (a copy).
    public func sendChunk(_ bytes: [UInt8]) {
        guard let chunk = ChunkBuffer() else { return }
        chunk.append(bytes)
        send(chunk, notifying: nil)
    }

    /// Sends `chunk` (which it empties); with `server`, its delegate hears when the chunk has
    /// been written to the socket (``EventHTTPServerDelegate/httpStepWritten(on:)``).
    public func send(_ chunk: ChunkBuffer, notifying server: EventHTTPServer?) {
        if let server {
            evhttp_send_reply_chunk_with_cb(pointer, chunk.buffer, onHTTPStepWritten, Unmanaged.passUnretained(server).toOpaque())
        } else {
            evhttp_send_reply_chunk(pointer, chunk.buffer)
        }
    }

    /// Ends a response started with ``startReply(status:)``.
    public func endReply() { evhttp_send_reply_end(pointer) }

    /// The server's delegate hears when the response has been sent whole.
    public func notifyWhenSent(to server: EventHTTPServer) {
        evhttp_request_set_on_complete_cb(pointer, onHTTPRequestSent, Unmanaged.passUnretained(server).toOpaque())
    }
}

/// Bytes of one chunk of a response (see ``HTTPServerRequest/send(_:notifying:)``). Loop thread only.
public final class ChunkBuffer {
    let buffer: OpaquePointer

    public init?() {
        guard let buffer = evbuffer_new() else { return nil }
        self.buffer = buffer
    }

    deinit { evbuffer_free(buffer) }

    /// Appends a copy of `bytes`.
    public func append(_ bytes: UnsafeRawBufferPointer) { evbuffer_add(buffer, bytes.baseAddress, bytes.count) }
    public func append(_ bytes: [UInt8]) { evbuffer_add(buffer, bytes, bytes.count) }
}

/// One of evhttp's connections (a handle; evhttp frees it). Loop thread only.
public struct HTTPServerConnection: Hashable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// Its socket's descriptor (-1 if it has none).
    public var descriptor: Int32 { evhttp_connection_get_bufferevent(pointer).map { bufferevent_getfd($0) } ?? -1 }

    /// Bytes queued on it and not yet taken by its socket.
    public var unsentBytes: Int {
        guard let bev = evhttp_connection_get_bufferevent(pointer), let out = bufferevent_get_output(bev) else { return 0 }
        return evbuffer_get_length(out)
    }

    /// Bytes read from its socket and not yet parsed (a pipelined request's).
    public var unreadBytes: Int {
        guard let bev = evhttp_connection_get_bufferevent(pointer), let input = bufferevent_get_input(bev) else { return 0 }
        return evbuffer_get_length(input)
    }

    /// The client's address, as text ("" if unknown).
    public var peerAddress: String {
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(pointer, &address, &port)
        return address.map { String(cString: $0) } ?? ""
    }

    /// Closes it now (evhttp calls the close callback first).
    public func free() { evhttp_connection_free(pointer) }
}
