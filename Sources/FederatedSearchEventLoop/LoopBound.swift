#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A reference to an object confined to the loop thread that a `@Sendable` closure may carry
/// and use only when it runs on that thread (a search task on the loop's own executor), in the
/// spirit of NIO's `NIOLoopBound`; where that one traps on another thread, this one gives
/// nothing there, and the caller takes the thread-safe way (the inbox).
///
/// `@unchecked Sendable` is safe here: the wrapped object is handed out only on the thread that
/// created the wrapper (checked with `pthread_equal` on every access), so it is never touched
/// from two threads; moving the wrapper itself between threads copies a reference and a thread
/// id, nothing else.
public struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    private let value: Value
    private let thread: pthread_t

    /// Wraps `value`; must be created on the loop thread.
    public init(_ value: Value) {
        self.value = value
        thread = pthread_self()
    }

    /// The object, when called on the loop thread; nil elsewhere.
    public var onLoopThread: Value? { pthread_equal(pthread_self(), thread) != 0 ? value : nil }
}

/// Moves an object made on this thread to a new thread (a loop's), which runs `body` with it;
/// returns when `body` has returned.
///
/// `@unchecked Sendable` is safe: the object is handed over exactly once, before the new
/// thread starts, and the calling thread only waits from then on; only the new thread uses it.
public final class ThreadHandoff<Value: AnyObject>: @unchecked Sendable {
    private let value: Value

    private init(_ value: Value) { self.value = value }

    public static func run(_ value: Value, onThreadNamed name: String, stackSize: Int, _ body: @escaping @Sendable (Value) -> Void) {
        let handoff = ThreadHandoff(value)
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            body(handoff.value)
            finished.signal()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
        finished.wait()
    }
}
