#if canImport(Glibc)
import Glibc
#endif

/// Creates the daemon's listening Unix socket: checks the path, creates the parent folder,
/// refuses to start over a live daemon, removes a stale socket file, binds and sets the mode.
enum UnixSocket {
    /// The longest path `sockaddr_un` holds (108 bytes with the terminating NUL).
    static let maxPathBytes = 107

    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// Returns a listening, non-blocking, close-on-exec socket bound to `path`.
    static func listen(path: String, mode: UInt32, backlog: Int32 = 511) throws -> Int32 {
        guard !path.isEmpty, path.utf8.count <= maxPathBytes else {
            throw SetupError(description: "socket path '\(path)' is \(path.utf8.count) bytes; the limit is \(maxPathBytes)")
        }
        try makeParentDirectory(of: path)
        try removeStale(path)
        let fd = try systemCall("socket") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        do {
            var addr = try address(path)
            try systemCall("bind(\(path))") {
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
            }
            try systemCall("chmod(\(path))") { chmod(path, mode_t(mode)) }
            try systemCall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    static func address(_ path: String) throws -> sockaddr_un {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathBytes else { throw SetupError(description: "socket path too long") }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return addr
    }

    static func makeParentDirectory(of path: String) throws {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast().map(String.init)
        var current = path.hasPrefix("/") ? "" : "."
        while !parts.isEmpty {
            current += "/" + parts.removeFirst()
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw SetupError(description: "cannot create folder '\(current)': \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Removes a socket file nobody listens on; refuses if a daemon answers there or if the
    /// path is not a socket.
    static func removeStale(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard (st.st_mode & S_IFMT) == S_IFSOCK else {
            throw SetupError(description: "'\(path)' exists and is not a socket; refusing to replace it")
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return }
        defer { close(probe) }
        var addr = try address(path)
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if r == 0 {
            throw SetupError(description: "another daemon is already listening on '\(path)'")
        }
        unlink(path)
    }
}
