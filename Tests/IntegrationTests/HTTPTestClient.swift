import DaemonTestSupport
import Foundation
import FederatedSearchCore

/// A plain HTTP/1.1 client on one TCP connection (keep-alive), for the HTTP API's tests: it
/// sends exactly the bytes asked, and reads Content-Length and chunked bodies.
final class HTTPTestClient {
    struct Response {
        let status: Int
        /// Header values by lowercased name.
        let headers: [String: String]
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        /// The body parsed as a JSON object (empty if it is not one).
        var json: JSONObject {
            if case .object(let o)? = try? JSONParser.parse(body) { return o }
            return [:]
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// `receiveBuffer`: a small kernel receive buffer, so a client that does not read leaves
    /// the server's answer in the server's buffers. `from`: the loopback address the client
    /// connects from (another client, to the server: `127.0.0.2`).
    init(port: Int, timeoutSeconds: Int = 20, receiveBuffer: Int32? = nil, from source: String? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw DaemonProcess.DaemonError(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    private var closed = false

    deinit { if !closed { close(fd) } }

    /// Closes the connection (the server sees the client go away).
    func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Aborts the connection: the server gets an RST, not a FIN.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
        closed = true
    }

    /// Sends a request; `body` as given (JSON text, usually).
    func send(_ method: String, _ target: String, body: String? = nil, headers: [String: String] = [:]) throws {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        if headers["Host"] == nil { text += "Host: 127.0.0.1\r\n" }
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        try sendRaw(text)
    }

    /// Sends `text` as it is (a request written by hand, malformed on purpose).
    func sendRaw(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw DaemonProcess.DaemonError(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// Whether the server has closed the connection (after what it sent was read).
    func serverClosed() -> Bool {
        do {
            try fill()
            return false
        } catch {
            return true
        }
    }

    /// Whether the server closes the connection within `seconds` (unlike ``serverClosed()``,
    /// a wait that times out is not taken for a close). Bytes that come first are dropped.
    func serverCloses(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&p, 1, Int32(max(0, deadline.timeIntervalSinceNow * 1000))) > 0 {
            var bytes = [UInt8](repeating: 0, count: 4096)
            let n = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        }
        return false
    }

    /// Sends a request and reads its whole response.
    func request(_ method: String, _ target: String, body: String? = nil, headers: [String: String] = [:]) throws -> Response {
        try send(method, target, body: body, headers: headers)
        return try readResponse(head: method == "HEAD")
    }

    /// A JSON request (the body is the object's text).
    func request(_ method: String, _ target: String, json: JSONValue, headers: [String: String] = [:]) throws -> Response {
        try request(method, target, body: JSONWriter.string(json), headers: headers)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else {
            throw DaemonProcess.DaemonError(description: n == 0 ? "the server closed the connection" : "recv: errno \(errno)")
        }
        buffer.append(contentsOf: chunk[..<n])
    }

    /// The next line (without CRLF).
    private func line() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<i].last == 0x0D ? buffer[..<(i - 1)] : buffer[..<i]
                buffer.removeFirst(i + 1)
                return String(decoding: line, as: UTF8.self)
            }
            try fill()
        }
    }

    private func take(_ n: Int) throws -> [UInt8] {
        while buffer.count < n { try fill() }
        defer { buffer.removeFirst(n) }
        return Array(buffer[..<n])
    }

    /// The status line and headers of the next response.
    func readHead() throws -> (status: Int, headers: [String: String]) {
        let statusLine = try line()
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw DaemonProcess.DaemonError(description: "bad status line '\(statusLine)'")
        }
        var headers: [String: String] = [:]
        while true {
            let h = try line()
            if h.isEmpty { break }
            guard let colon = h.firstIndex(of: ":") else { continue }
            headers[h[..<colon].lowercased()] = h[h.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    /// The next chunk of a chunked body (nil at its end).
    func readChunk() throws -> [UInt8]? {
        let sizeLine = try line()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw DaemonProcess.DaemonError(description: "bad chunk size '\(sizeLine)'")
        }
        if size == 0 {
            _ = try line()
            return nil
        }
        let data = try take(size)
        _ = try line()
        return data
    }

    func readResponse(head: Bool = false) throws -> Response {
        let (status, headers) = try readHead()
        var body: [UInt8] = []
        if head || status == 204 || status == 304 {
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk() { body += chunk }
        } else if let n = headers["content-length"].flatMap({ Int($0) }) {
            body = try take(n)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// The events of a server-sent event stream as they arrive, each event's `data` parsed,
    /// until the stream ends; `onEvent` may stop early by returning false.
    /// The `id:` of the last server-sent event read (what a browser sends as `Last-Event-ID`).
    private(set) var lastEventID: String?

    func readEvents(_ onEvent: (JSONObject) throws -> Bool = { _ in true }) throws -> [JSONObject] {
        var events: [JSONObject] = []
        var pending: [UInt8] = []
        while let chunk = try readChunk() {
            pending += chunk
            while let end = Self.eventEnd(pending) {
                let event = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 2)
                for l in event.split(separator: "\n") where l.hasPrefix("id: ") { lastEventID = String(l.dropFirst(4)) }
                for l in event.split(separator: "\n") where l.hasPrefix("data: ") {
                    guard case .object(let o) = try JSONParser.parse(String(l.dropFirst(6))) else { continue }
                    events.append(o)
                    if try !onEvent(o) { return events }
                }
            }
        }
        return events
    }

    private static func eventEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        for i in 0..<(bytes.count - 1) where bytes[i] == 0x0A && bytes[i + 1] == 0x0A { return i }
        return nil
    }
}
