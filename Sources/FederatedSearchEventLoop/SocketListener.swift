#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent

/// A listening socket on a loop: each connection accepted is handed to `onAccept` as a
/// descriptor (the callee owns it). Failures to accept back off (see ``AcceptBackoff``).
/// Loop thread only.
public final class SocketListener {
    private var listener: OpaquePointer?
    private let onAccept: (Int32) -> Void

    /// Accepts on `descriptor`, which already listens (ours with its backlog, or systemd's
    /// with `Backlog=`), and closes it when freed.
    public init(on base: EventBase, descriptor: Int32, onAccept: @escaping (Int32) -> Void) throws(SystemCallError) {
        self.onAccept = onAccept
        // Backlog 0: the socket listens already; a negative one would make libevent call
        // listen(2) again with its default of 128. Safe: the listener is freed with this object.
        guard
            let l = evconnlistener_new(
                base.pointer, onListenerAccept, Unmanaged.passUnretained(self).toOpaque(),
                UInt32(LEV_OPT_CLOSE_ON_FREE), 0, descriptor)
        else {
            throw SystemCallError(call: "evconnlistener_new", errno: errno)
        }
        AcceptBackoff.watch(l)
        listener = l
    }

    deinit {
        if let listener {
            AcceptBackoff.forget(listener)
            evconnlistener_free(listener)
        }
    }

    /// Stops accepting for good (the socket stays open, its queue for whoever takes it next).
    public func stopAccepting() {
        guard let listener else { return }
        AcceptBackoff.forget(listener)
        evconnlistener_disable(listener)
    }

    fileprivate func accepted(_ fd: Int32) { onAccept(fd) }
}

private func onListenerAccept(
    _ listener: OpaquePointer?, _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: Int32,
    _ context: UnsafeMutableRawPointer?
) {
    Unmanaged<SocketListener>.fromOpaque(context!).takeUnretainedValue().accepted(fd)
}
