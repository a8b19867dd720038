#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// The protocol's transport: a Unix stream socket. One place builds `sockaddr_un` for the
/// daemon (bind), the client library, and the `fedsearchd` backend (connect).
///
/// The pointer code here wraps libc's socket calls, which take a `sockaddr` by pointer; the
/// pointers never escape the closures.
public enum UnixSocketTransport {
    /// The longest path `sockaddr_un` holds (108 bytes with the terminating NUL).
    public static let maxPathBytes = 107

    /// A transport failure, with the errno text.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Calls `body` with the address of `path`; nil if the path is empty or too long.
    public static func withAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T? {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathBytes else { return nil }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// `socket(2)`'s type for a close-on-exec, non-blocking stream socket (the daemon's
    /// listener: its module cannot name these constants, which a C header it imports claims).
    package static let nonBlockingStreamType =
        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)

    /// Opens a close-on-exec stream socket connected to `path`.
    public static func connect(path: String) throws(Failure) -> Int32 {
        guard path.utf8.count <= maxPathBytes, !path.isEmpty else {
            throw Failure(description: "socket path '\(path)' is empty or longer than \(maxPathBytes) bytes")
        }
        let fd: Int32
        do { fd = try systemCall { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) } } catch {
            throw Failure(description: "socket: \(error)")
        }
        do {
            try systemCall { withAddress(path) { Glibc.connect(fd, $0, $1) } ?? -1 }
            return fd
        } catch {
            close(fd)
            throw Failure(description: "cannot connect to \(path): \(error)")
        }
    }
}
