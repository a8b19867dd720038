#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchEventLoop

/// ``systemCall(_:)`` whose failure names the call (the daemon's start-up errors).
@discardableResult
func systemCall<T: BinaryInteger>(_ name: String, _ body: () -> T) throws -> T {
    do { return try systemCall(body) } catch { throw SystemCallError(call: name, errno: error.code) }
}
