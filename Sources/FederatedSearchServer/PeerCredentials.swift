#if canImport(Glibc)
import Glibc
#endif
import CGlibcExtras

/// The process on the other end of a Unix socket, from SO_PEERCRED (read once at accept).
package struct PeerCredentials: Equatable {
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32

    package init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Reads the credentials of a connected Unix socket; nil if the kernel does not say.
    package init?(socket fd: Int32) {
        var cred = fedsearch_peer_credentials()
        var length = socklen_t(MemoryLayout<fedsearch_peer_credentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
        self.init(pid: cred.pid, uid: cred.uid, gid: cred.gid)
    }

    /// Root, or the user the daemon runs as: the peers allowed admin operations.
    package var isAdministrator: Bool { uid == 0 || uid == getuid() }
}
