#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent
import FederatedSearchCore
import Synchronization

/// What a listener (the socket's, or the HTTP API's inside evhttp) does when accept(2) fails
/// for want of descriptors or memory. Left to libevent, the listener stays readable and its
/// callback fails again at once: it spins, logging a line each time. Here, as libuv and nginx
/// do, the listener sheds the connection at the head of the queue (a spare descriptor closed
/// to accept it, and closed again), pauses for ``pause``, then accepts again; one log line a
/// second at most says how many times it happened.
public enum AcceptBackoff {
    /// How long a listener stops accepting after a failure.
    static let pause = Duration.milliseconds(100)

    private struct State {
        /// A descriptor held in reserve, given up for a moment to accept and refuse a connection.
        var spare: Int32 = -1
        /// Listeners paused, by address: a resume touches only a listener still here.
        var paused: Set<UInt> = []
        /// Failures since the last log line, and when that line was written.
        var failures = 0
        var lastLog: ContinuousClock.Instant?
        /// Where the one line a second goes.
        var warn: @Sendable (String) -> Void = { _ in }
    }
    private static let state = Mutex(State())

    /// Opens the spare descriptor (once, at start, while descriptors are plentiful); failures
    /// are reported through `warn`.
    public static func prepare(warn: @escaping @Sendable (String) -> Void) {
        state.withLock { s in
            if s.spare < 0 { s.spare = open("/dev/null", O_RDONLY | O_CLOEXEC) }
            s.warn = warn
        }
    }

    /// Handles `listener`'s accept failures (on the loop thread, which runs its callbacks).
    static func watch(_ listener: OpaquePointer) {
        evconnlistener_set_error_cb(listener, onAcceptError)
    }

    /// `listener` is being disabled for good or freed: a pending resume leaves it alone.
    static func forget(_ listener: OpaquePointer) {
        _ = state.withLock { $0.paused.remove(key(listener)) }
    }

    fileprivate static func failed(_ listener: OpaquePointer, errno error: Int32) {
        let key = key(listener)
        let outOfDescriptors = error == EMFILE || error == ENFILE
        let (spare, log, count, warn) = state.withLock { s -> (Int32, Bool, Int, @Sendable (String) -> Void) in
            s.failures += 1
            s.paused.insert(key)
            let now = ContinuousClock.now
            let log = s.lastLog.map { now - $0 >= .seconds(1) } ?? true
            let count = s.failures
            if log {
                s.lastLog = now
                s.failures = 0
            }
            let spare = outOfDescriptors ? s.spare : -1
            if outOfDescriptors { s.spare = -1 }
            return (spare, log, count, s.warn)
        }
        if spare >= 0 {
            // The spare descriptor makes room for one accept: the client at the head of the
            // queue is refused (its connection closed) rather than left waiting in it.
            close(spare)
            let refused = accept(evconnlistener_get_fd(listener), nil, nil)
            if refused >= 0 { close(refused) }
            let reopened = open("/dev/null", O_RDONLY | O_CLOEXEC)
            state.withLock { $0.spare = reopened }
        }
        evconnlistener_disable(listener)
        var tv = pause.timeval
        if event_base_once(
            evconnlistener_get_base(listener), -1, Int16(EV_TIMEOUT), onResumeAccepting, UnsafeMutableRawPointer(listener), &tv) != 0
        {
            // No timer could be set: accept again at once rather than never.
            resume(listener)
        }
        if log {
            warn(
                """
                accept failed: \(Errno(error)) (\(count) time\(count == 1 ? "" : "s") since the last such line); \
                new connections wait \(pause.components.attoseconds / 1_000_000_000_000_000) ms\
                \(outOfDescriptors ? ", and one was refused: raise the descriptor limit (LimitNOFILE) or lower limits.maxConnections" : "")
                """)
        }
    }

    fileprivate static func resume(_ listener: OpaquePointer) {
        if state.withLock({ $0.paused.remove(key(listener)) }) != nil { evconnlistener_enable(listener) }
    }

    /// A listener's address, by which `paused` knows it.
    private static func key(_ listener: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(listener))) }

    /// Raises the soft limit on open descriptors to the hard one (what systemd's LimitNOFILE
    /// or the shell allow); the new soft limit.
    public static func raiseDescriptorLimit() -> UInt {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt(raised.rlim_cur) }
        }
        return UInt(limit.rlim_cur)
    }
}

private func onAcceptError(_ listener: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let error = errno
    guard let listener else { return }
    AcceptBackoff.failed(listener, errno: error)
}

private func onResumeAccepting(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    AcceptBackoff.resume(OpaquePointer(context))
}
