#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchEventLoop
import FederatedSearchHTTP

/// What the HTTP listener checks and writes at the socket's level, with no state of its own:
/// the framing a proxy could read otherwise, a peer's address, a refusal written before evhttp
/// has read anything.
enum HTTPFraming {
    /// What makes a request's framing or target ambiguous: a header name with a space or a tab
    /// in it (`Content-Length : 5`, which libevent ignores and a proxy may not), two
    /// `Content-Length` headers that differ (libevent takes the first), or an HTTP/1.1 request
    /// with no `Host` or several (RFC 9112 §3.2). Nil: none.
    static func ambiguity(headers: [(name: String, value: String)], version: (major: Int, minor: Int)) -> String? {
        var lengths: Set<String> = []
        var hosts = 0
        for (name, value) in headers {
            if name.contains(" ") || name.contains("\t") {
                return "header '\(name)': a header name has no spaces or tabs"
            }
            switch name.lowercased() {
            case "content-length": lengths.insert(value)
            case "host": hosts += 1
            default: break
            }
        }
        if lengths.count > 1 { return "Content-Length: the request has several that differ (\(lengths.sorted().joined(separator: ", ")))" }
        if hosts > 1 { return "Host: the request has \(hosts); it must have one" }
        if hosts == 0, version.major > 1 || (version.major == 1 && version.minor >= 1) {
            return "Host: an HTTP/1.1 request must have a Host header"
        }
        return nil
    }

    /// Answers a connection that cannot be served with `response`, written straight to its
    /// socket (whose output is empty: nothing has been sent on it), and shuts its sending side.
    static func refuse(socket fd: Int32, _ response: HTTPResponse) {
        var text = "HTTP/1.1 \(response.status) Service Unavailable\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n"
        for h in response.headers { text += "\(h.name): \(h.value)\r\n" }
        let bytes = Array((text + "\r\n").utf8) + response.body
        _ = send(fd, bytes, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The address of a socket's peer as libevent writes it (numeric; "" for a Unix socket's).
    static func peerAddress(socket fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard got == 0, storage.ss_family == sa_family_t(AF_INET) || storage.ss_family == sa_family_t(AF_INET6) else { return "" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let named = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard named == 0 else { return "" }
        return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
