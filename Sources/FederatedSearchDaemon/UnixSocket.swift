#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchServer
import FederatedSearchProtocol

/// Creates the daemon's listening Unix socket: checks the path, creates the parent folder,
/// refuses to start over a live daemon, removes a stale socket file, binds and sets the mode.
enum UnixSocket {
    static let maxPathBytes = UnixSocketTransport.maxPathBytes

    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// Returns a listening, non-blocking, close-on-exec socket bound to `path`.
    static func listen(path: String, mode: UInt32, backlog: Int32 = 511) throws -> Int32 {
        guard !path.isEmpty, path.utf8.count <= maxPathBytes else {
            throw SetupError(description: "socket path '\(path)' is \(path.utf8.count) bytes; the limit is \(maxPathBytes)")
        }
        try Folders.makeParent(of: path)
        try removeStale(path)
        let fd = try systemCall("socket") { socket(AF_UNIX, UnixSocketTransport.nonBlockingStreamType, 0) }
        do {
            try systemCall("bind(\(path))") { UnixSocketTransport.withAddress(path) { bind(fd, $0, $1) } ?? -1 }
            try systemCall("chmod(\(path))") { chmod(path, mode_t(mode)) }
            try systemCall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// Removes a socket file nobody listens on; refuses if a daemon answers there or if the
    /// path is not a socket.
    static func removeStale(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw SetupError(description: "'\(path)' exists and is not a socket; refusing to replace it")
        }
        try refuseIfServed(path)
        unlink(path)
    }

    /// Throws if a daemon answers on `path`.
    static func refuseIfServed(_ path: String) throws {
        if let probe = try? UnixSocketTransport.connect(path: path) {
            close(probe)
            throw SetupError(description: "another daemon is already listening on '\(path)'")
        }
    }
}
