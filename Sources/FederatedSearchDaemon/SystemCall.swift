#if canImport(Glibc)
import Glibc
import FederatedSearchServer
#endif

/// A failed system or libevent call, naming the call and the errno text.
public struct SystemCallError: Error, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Runs a C call that returns -1 (or a negative value) on failure, retrying on EINTR, and
/// throws an error naming the call otherwise. Every raw call in the daemon goes through it.
@discardableResult
func systemCall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws -> T {
    while true {
        let r = body()
        if r >= 0 { return r }
        let e = errno
        if e == EINTR { continue }
        throw SystemCallError(call: name, errno: e)
    }
}
