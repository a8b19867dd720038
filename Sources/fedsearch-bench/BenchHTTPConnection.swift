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
        // The status and the two headers that frame the body, read from the bytes (no strings:
        // the socket's raw client reads its lines as cheaply).
        let bodyStart = headEnd! + 4
        guard let status = Self.status(buffer, start) else {
            throw BenchError("bad response head: \(String(decoding: buffer[start..<headEnd!].prefix(200), as: UTF8.self))")
        }
        let length = Self.headerValue(Self.contentLength, in: buffer, start..<headEnd!).flatMap { Self.integer(buffer, $0) } ?? 0
        let chunked = Self.headerValue(Self.transferEncoding, in: buffer, start..<headEnd!) != nil
        if chunked { return (status, try skipChunks(from: bodyStart)) }
        while buffer.count - bodyStart < length { try fill() }
        start = bodyStart + length
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
        return (status, length)
    }

    private static let contentLength = Array("\r\ncontent-length:".utf8)
    private static let transferEncoding = Array("\r\ntransfer-encoding:".utf8)

    /// The three digits after `HTTP/1.1 `.
    private static func status(_ b: [UInt8], _ at: Int) -> Int? {
        guard b.count >= at + 12 else { return nil }
        var v = 0
        for i in (at + 9)..<(at + 12) {
            guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
            v = v * 10 + Int(b[i] - 0x30)
        }
        return v
    }

    /// Where the value of the header named by `name` (`\r\nname:`, lowercase) starts in `range`.
    private static func headerValue(_ name: [UInt8], in b: [UInt8], _ range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i + name.count <= range.upperBound {
            var j = 0
            while j < name.count, (b[i + j] | (b[i + j] >= 0x41 && b[i + j] <= 0x5A ? 0x20 : 0)) == name[j] { j += 1 }
            if j == name.count { return i + j }
            i += 1
        }
        return nil
    }

    /// The decimal number at `at` (after spaces).
    private static func integer(_ b: [UInt8], _ at: Int) -> Int? {
        var i = at
        while i < b.count, b[i] == 0x20 { i += 1 }
        var v = 0
        var digits = 0
        while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
            v = v * 10 + Int(b[i] - 0x30)
            i += 1
            digits += 1
        }
        return digits > 0 ? v : nil
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

    /// One receive buffer for the connection's life (not allocated and zeroed per read).
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    /// Appends what the socket has (indices into `buffer` stay valid during a response).
    /// Pointer use: the chunk's storage, borrowed for the `recv` call and read within its count.
    private func fill() throws {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { throw BenchError(n == 0 ? "the server closed the connection" : "recv: errno \(errno)") }
        chunk.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<n])) }
    }
}
