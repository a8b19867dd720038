#if canImport(Glibc)
import Glibc
import FederatedSearchServer
#endif

/// A reference to an object confined to the loop thread that a `@Sendable` closure may carry
/// and use only when it runs on that thread (a search task on the loop's own executor), in the
/// spirit of NIO's `NIOLoopBound`; where that one traps on another thread, this one gives
/// nothing there, and the caller takes the thread-safe way (the inbox).
///
/// `@unchecked Sendable` is safe here: the wrapped object is handed out only on the thread that
/// created the wrapper (checked with `pthread_equal` on every access), so it is never touched
/// from two threads; moving the wrapper itself between threads copies a reference and a thread
/// id, nothing else.
struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    private let value: Value
    private let thread: pthread_t

    /// Wraps `value`; must be created on the loop thread.
    init(_ value: Value) {
        self.value = value
        thread = pthread_self()
    }

    /// The object, when called on the loop thread; nil elsewhere.
    var onLoopThread: Value? { pthread_equal(pthread_self(), thread) != 0 ? value : nil }
}
