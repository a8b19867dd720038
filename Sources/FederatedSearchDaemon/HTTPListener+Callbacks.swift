import CLibevent

// libevent's callbacks into the HTTP listener: file-scope C functions that get the listener
// back through `Unmanaged` (it outlives every callback: `shutDown()` frees evhttp first).

/// evhttp accepted a connection and asks for its buffer event: the socket kind it would make
/// itself (closing the descriptor when freed), with no descriptor yet, as evhttp requires.
func onHTTPAccepted(_ base: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let bev = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else { return nil }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().accepted(bev)
    return bev
}

func onHTTPAdmit(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().admitArrivals()
}

func onHTTPInputChange(
    _ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?
) {
    guard let buffer, let info, info.pointee.n_added > 0 else { return }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().inputArrived(buffer)
}

func onHTTPRequestSent(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request else { return }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().sent(request)
}

func onHTTPOutputChange(
    _ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?
) {
    guard let info else { return }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().outputChanged(by: info.pointee.n_added - info.pointee.n_deleted)
}

/// evhttp wrote the last step of a piecewise response to the socket.
func onHTTPStepSent(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let connection else { return }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().sendNextStep(connection)
}

func onHTTPPeerClosed(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().peerClosed(fd)
}

func onHTTPConnectionClosed(_ connection: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let connection else { return }
    Unmanaged<HTTPListener>.fromOpaque(context!).takeUnretainedValue().closed(connection)
}
