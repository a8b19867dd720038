#if canImport(Glibc)
import Glibc
#endif
import CGlibcExtras
import FederatedSearchServer

extension PeerCredentials {
    /// Reads the credentials of a connected Unix socket (SO_PEERCRED); nil if the kernel does
    /// not say.
    init?(socket fd: Int32) {
        var cred = fedsearch_peer_credentials()
        var length = socklen_t(MemoryLayout<fedsearch_peer_credentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
        self.init(pid: cred.pid, uid: cred.uid, gid: cred.gid)
    }
}
