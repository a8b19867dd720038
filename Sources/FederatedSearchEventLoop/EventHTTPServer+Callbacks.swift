internal import CLibevent

// libevent's callbacks into the HTTP server: file-scope C functions that get the server back
// through `Unmanaged` (it outlives every callback: evhttp is freed first).

private func server(_ context: UnsafeMutableRawPointer?) -> EventHTTPServer {
    Unmanaged<EventHTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

func onHTTPRequest(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request else { return }
    server(context).delegate.httpReceived(HTTPServerRequest(request))
}

/// evhttp accepted a connection and asks for its buffer event: the socket kind it would make
/// itself (closing the descriptor when freed), with no descriptor yet, as evhttp requires.
func onHTTPAccepted(_ base: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let bev = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
    server(context).accepted(bev)
    return bev
}

func onHTTPInputChange(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?) {
    guard let buffer, let info, info.pointee.n_added > 0 else { return }
    let server = server(context)
    if let connection = server.byInput[buffer] { server.delegate.httpInputArrived(on: connection) }
}

func onHTTPRequestSent(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request else { return }
    server(context).delegate.httpSent(HTTPServerRequest(request))
}

func onHTTPOutputChange(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?) {
    guard let info else { return }
    server(context).delegate.httpOutputChanged(by: info.pointee.n_added - info.pointee.n_deleted)
}

/// evhttp wrote a step of a response to the socket.
func onHTTPStepWritten(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let connection else { return }
    server(context).delegate.httpStepWritten(on: HTTPServerConnection(connection))
}

func onHTTPConnectionClosed(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let connection else { return }
    server(context).delegate.httpConnectionClosed(HTTPServerConnection(connection))
}
