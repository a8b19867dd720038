#if canImport(Glibc)
import Glibc
#endif

/// The process on the other end of a Unix socket (the daemon reads it with SO_PEERCRED at accept).
package struct PeerCredentials: Equatable {
    package let pid: Int32
    package let uid: UInt32
    package let gid: UInt32

    package init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Root, or the user the daemon runs as: the peers allowed admin operations.
    package var isAdministrator: Bool { uid == 0 || uid == getuid() }
}
