#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 keep-alive client on one TCP connection to 127.0.0.1, for the HTTP
/// benchmark: it writes a request's bytes, reads the head and a Content-Length body, and
/// parses nothing else, so the figure is the server's cost (the same client for every server).
final class BenchHTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else {
            close(fd)
            throw BenchError("connect to 127.0.0.1:\(port): errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        buffer.reserveCapacity(1 << 20)
    }

    deinit { close(fd) }

    /// The bytes of a request (encoded before any clock starts).
    static func request(_ method: String, _ target: String, body: [UInt8] = [], headers: [String] = []) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for h in headers { head += h + "\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// Sends a request and reads its response; the status and the body's length.
    func roundTrip(_ request: [UInt8]) throws -> (status: Int, bodyBytes: Int) {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw BenchError("send: errno \(errno)") }
            sent += n
        }
        // The head: up to the blank line.
        var headEnd: Int?
        while headEnd == nil {
            headEnd = find([0x0D, 0x0A, 0x0D, 0x0A], from: start)
            if headEnd == nil { try fill() }
        }
        let head = String(decoding: buffer[start..<headEnd!], as: UTF8.self)
        let bodyStart = headEnd! + 4
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else {
            throw BenchError("bad response head: \(head.prefix(200))")
        }
        var length = 0
        var chunked = false
        for l in lines.dropFirst() {
            let lower = l.lowercased()
            if lower.hasPrefix("content-length:") { length = Int(l.split(separator: ":")[1].trimmingPrefix(" ")) ?? 0 }
            if lower.hasPrefix("transfer-encoding:"), lower.contains("chunked") { chunked = true }
        }
        if chunked { return (status, try skipChunks(from: bodyStart)) }
        while buffer.count - bodyStart < length { try fill() }
        start = bodyStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return (status, length)
    }

    /// Reads a chunked body starting at `from`; its length.
    private func skipChunks(from: Int) throws -> Int {
        start = from
        var total = 0
        while true {
            var lineEnd = find2([0x0D, 0x0A], from: start)
            while lineEnd == nil {
                try fill()
                lineEnd = find2([0x0D, 0x0A], from: start)
            }
            let sizeText = String(decoding: buffer[start..<lineEnd!], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText, radix: 16) else { throw BenchError("bad chunk size '\(sizeText)'") }
            let dataStart = lineEnd! + 2
            while buffer.count < dataStart + size + 2 { try fill() }
            start = dataStart + size + 2
            total += size
            if size == 0 { break }
        }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return total
    }

    private func find2(_ needle: [UInt8], from: Int) -> Int? {
        guard buffer.count - from >= 2 else { return nil }
        var i = from
        while i + 1 < buffer.count {
            if buffer[i] == needle[0], buffer[i + 1] == needle[1] { return i }
            i += 1
        }
        return nil
    }

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard buffer.count - from >= needle.count else { return nil }
        var i = from
        while i + needle.count <= buffer.count {
            if buffer[i] == needle[0], buffer[i + 1] == needle[1], buffer[i + 2] == needle[2], buffer[i + 3] == needle[3] {
                return i
            }
            i += 1
        }
        return nil
    }

    /// Appends what the socket has (indices into `buffer` stay valid during a response).
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw BenchError(n == 0 ? "the server closed the connection" : "recv: errno \(errno)") }
        buffer.append(contentsOf: chunk[..<n])
    }
}
