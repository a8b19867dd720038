#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent
import FederatedSearchCore

/// A libevent loop (`event_base`): the thread that calls ``run()`` (or its one-turn forms)
/// runs every callback of the events, sockets and HTTP objects made on it. Everything made on
/// a base is used on that thread only, except ``LoopInbox/post(_:)``, the one way in from others.
public final class EventBase {
    let pointer: OpaquePointer

    /// Makes a loop whose events may be activated from other threads (`evthread_use_pthreads`
    /// must precede `event_base_new` for that).
    public init() throws(SystemCallError) {
        guard evthread_use_pthreads() == 0, let base = event_base_new() else {
            throw SystemCallError(call: "event_base_new", errno: errno)
        }
        pointer = base
    }

    /// Sets up libevent's locking, once per process before any loop is made: two threads
    /// making their first loops at once would both set it up, which libevent's assertion
    /// trips (evthread.c: lock_ == NULL). Later calls return at once.
    public static func prepareThreads() { _ = evthread_use_pthreads() }

    /// Freed after everything made on it (its owner frees those first).
    deinit { event_base_free(pointer) }

    /// Runs until ``stop()``, or until no event is left.
    public func run() { event_base_dispatch(pointer) }

    /// Runs until ``stop()``, with or without events (a loop that only serves its inbox).
    public func runForever() { event_base_loop(pointer, EVLOOP_NO_EXIT_ON_EMPTY) }

    /// Runs one turn: waits for an event (`blocking`) or only handles those ready. False on an
    /// error or when no event is left, where ``run()`` would have returned.
    public func runOnce(blocking: Bool) -> Bool {
        event_base_loop(pointer, blocking ? EVLOOP_ONCE : EVLOOP_NONBLOCK) == 0
    }

    /// Makes ``run()`` return once the callback running now has returned.
    public func stop() { event_base_loopbreak(pointer) }
}

/// A failed system or libevent call, naming the call and the errno text.
public struct SystemCallError: Error, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }
    public var description: String { "\(call) failed: \(Errno(errno)) (errno \(errno))" }
}

extension Duration {
    /// As the `timeval` libevent's timers take.
    var timeval: Glibc.timeval {
        let c = components
        return Glibc.timeval(tv_sec: Int(c.seconds), tv_usec: Int(c.attoseconds / 1_000_000_000_000))
    }
}
