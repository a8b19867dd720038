#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// A failed system or libevent call, naming the call and the errno text.
public struct SystemCallError: Error, CustomStringConvertible {
    public let call: String
    public let errno: Int32
    public var description: String { "\(call) failed: \(Errno(errno)) (errno \(errno))" }
}

/// ``systemCall(_:)`` whose failure names the call (the daemon's start-up errors).
@discardableResult
func systemCall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws -> T {
    do { return try systemCall(body) } catch { throw SystemCallError(call: name, errno: error.code) }
}
