#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import Synchronization

/// getpwnam, getgrnam and getpwuid return static buffers: the loop thread (peer groups) and a
/// reload's task (config names) must not call them at the same time.
private let userDatabase = Mutex(())

/// Who may search and who may write one index, from the searchable's `access` config:
///
///     "access": {"search": ["*"], "write": ["user:deploy", "group:editors", "uid:1001"]}
///
/// Principals are `*` (anyone who can open the socket: its file mode decides), `user:NAME`,
/// `group:NAME`, `uid:N` and `gid:N`. Names are resolved when the config loads; an unknown
/// name is a config error. Root and the daemon's own user may always do everything.
/// Defaults: search open to all, writes only for root and the daemon's user.
public struct AccessPolicy: Sendable, Equatable {
    /// A resolved principal.
    package enum Principal: Sendable, Equatable {
        case anyone
        case uid(UInt32)
        case gid(UInt32)
    }

    package var search: [Principal] = [.anyone]
    package var write: [Principal] = []

    public init() {}

    package static func decode(_ object: JSONObject, path: String) throws(SearchError) -> AccessPolicy {
        var r = FieldReader(object, path: path)
        var policy = AccessPolicy()
        if let list = try r.stringArray("search") {
            policy.search = try list.enumerated().map { i, s throws(SearchError) in
                try principal(s, path: "\(path).search[\(i)]")
            }
        }
        if let list = try r.stringArray("write") {
            policy.write = try list.enumerated().map { i, s throws(SearchError) in
                try principal(s, path: "\(path).write[\(i)]")
            }
        }
        try r.rejectUnknownKeys()
        return policy
    }

    package static func principal(_ text: String, path: String) throws(SearchError) -> Principal {
        if text == "*" { return .anyone }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else {
            throw SearchError(.invalidField, "\(path): expected '*', 'user:NAME', 'group:NAME', 'uid:N' or 'gid:N', got '\(text)'")
        }
        switch parts[0] {
        case "uid", "gid":
            guard let n = UInt32(parts[1]) else { throw SearchError(.invalidField, "\(path): '\(parts[1])' is not a number") }
            return parts[0] == "uid" ? .uid(n) : .gid(n)
        case "user":
            guard let uid = userDatabase.withLock({ _ in getpwnam(parts[1])?.pointee.pw_uid }) else {
                throw SearchError(.invalidField, "\(path): no user named '\(parts[1])'")
            }
            return .uid(uid)
        case "group":
            guard let gid = userDatabase.withLock({ _ in getgrnam(parts[1])?.pointee.gr_gid }) else {
                throw SearchError(.invalidField, "\(path): no group named '\(parts[1])'")
            }
            return .gid(gid)
        default:
            throw SearchError(.invalidField, "\(path): expected '*', 'user:NAME', 'group:NAME', 'uid:N' or 'gid:N', got '\(text)'")
        }
    }

    /// Whether `peer` may search.
    package func maySearch(_ peer: PeerIdentity?) -> Bool { allows(search, peer) }

    /// Whether `peer` may write.
    package func mayWrite(_ peer: PeerIdentity?) -> Bool { allows(write, peer) }

    /// Whether `peer` may know the index exists: it may search or write it. To any other peer
    /// the index is answered as if it did not exist (`unknown_index`, nothing in `indices` or
    /// `stats`), so a refusal does not tell which names exist.
    package func maySee(_ peer: PeerIdentity?) -> Bool { maySearch(peer) || mayWrite(peer) }

    private func allows(_ list: [Principal], _ peer: PeerIdentity?) -> Bool {
        if list.contains(.anyone) { return true }
        guard let peer else { return false }
        if peer.isAdministrator { return true }
        return list.contains { p in
            switch p {
            case .anyone: return true
            case .uid(let u): return peer.uid == u
            case .gid(let g): return peer.groups.contains(g)
            }
        }
    }
}

/// A peer's user and every group it belongs to (primary and supplementary). The groups are
/// looked up (NSS: /etc/group, or a directory service) only when a policy names a group, and
/// then once per connection. Lives on the loop thread.
package final class PeerIdentity {
    package let uid: UInt32
    package let gid: UInt32
    package let isAdministrator: Bool

    package init(_ credentials: PeerCredentials) {
        uid = credentials.uid
        gid = credentials.gid
        isAdministrator = credentials.isAdministrator
    }

    package lazy var groups: Set<UInt32> = {
        var groups: Set<UInt32> = [gid]
        let (uid, gid) = (self.uid, self.gid)
        userDatabase.withLock { _ in
            guard let pw = getpwuid(uid) else { return }
            var count: Int32 = 64
            var list = [gid_t](repeating: 0, count: 64)
            if getgrouplist(pw.pointee.pw_name, gid, &list, &count) >= 0 {
                groups.formUnion(list.prefix(Int(count)))
            }
        }
        return groups
    }()
}
