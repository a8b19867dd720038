#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent

/// One libevent event whose callback is a Swift closure: a trigger the loop activates itself,
/// a timer, a signal, or a socket becoming readable. Loop thread only; freed with the object,
/// which its owner keeps while it may fire.
///
/// The closure must not hold its owner strongly (capture it `unowned`): the owner holds the
/// event, and the event is freed only when the owner lets it go.
public final class LoopEvent {
    /// What fires the event.
    public enum Kind {
        /// Only ``activate()`` (the loop's own end-of-turn work).
        case trigger
        /// ``schedule(after:)`` once; with `repeating`, every period after that.
        case timer(repeating: Bool)
        /// A Unix signal (libevent's self-pipe: the closure runs on the loop thread).
        case signal(Int32)
        /// The socket has bytes to read, or its peer closed it (once: ``schedule(after:)`` again
        /// to keep watching).
        case readableOrClosed(socket: Int32)
    }

    private var event: OpaquePointer?
    private let handler: () -> Void

    /// Makes the event on `base`; nil if libevent cannot.
    public init?(on base: EventBase, _ kind: Kind, _ handler: @escaping () -> Void) {
        self.handler = handler
        let (fd, flags): (Int32, Int32) =
            switch kind {
            case .trigger: (-1, 0)
            case .timer(let repeating): (-1, repeating ? Int32(EV_PERSIST) : 0)
            case .signal(let number): (number, Int32(EV_SIGNAL | EV_PERSIST))
            case .readableOrClosed(let socket): (socket, Int32(EV_READ | EV_CLOSED))
            }
        // Safe: the event is freed in deinit, so libevent never calls back into a freed object.
        guard let made = event_new(base.pointer, fd, Int16(flags), onLoopEvent, Unmanaged.passUnretained(self).toOpaque()) else {
            return nil
        }
        event = made
    }

    deinit { if let event { event_free(event) } }

    /// Arms the event: a timer fires after `delay`; a signal or socket waits with no timeout
    /// when `delay` is nil.
    public func schedule(after delay: Duration? = nil) {
        guard let event else { return }
        if var tv = delay?.timeval { event_add(event, &tv) } else { event_add(event, nil) }
    }

    /// Runs the closure in this loop turn, after the callback running now (no system call
    /// from the loop thread).
    public func activate() {
        if let event { event_active(event, Int32(EV_READ), 0) }
    }

    /// The socket or signal it watches.
    public var descriptor: Int32 { event.map { event_get_fd($0) } ?? -1 }

    fileprivate func fire() { handler() }
}

private func onLoopEvent(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<LoopEvent>.fromOpaque(context!).takeUnretainedValue().fire()
}
