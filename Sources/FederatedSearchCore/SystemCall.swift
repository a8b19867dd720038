#if canImport(Glibc)
import Glibc
#endif

/// The errno a C call failed with, and its text.
public struct Errno: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(_ code: Int32) { self.code = code }

    /// The thread's errno now (read right after the call that failed).
    public static var current: Errno { Errno(errno) }

    /// The system's text for it (`No such file or directory`).
    public var description: String { String(cString: strerror(code)) }

    /// Whether a non-blocking call would have waited (EAGAIN, EWOULDBLOCK).
    public var wouldBlock: Bool { code == EAGAIN || code == EWOULDBLOCK }
}

/// Runs a C call that returns a negative value and sets errno when it fails, again as long as
/// it fails with EINTR (a signal arrived), and returns its result or throws its errno. Every
/// raw system call goes through it, so none handles EINTR or errno on its own.
@discardableResult
public func systemCall<T: BinaryInteger>(_ body: () -> T) throws(Errno) -> T {
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = errno
        if e == EINTR { continue }
        throw Errno(e)
    }
}
