import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchProtocol
import SocketTestClient

/// The client library's line reading over a real Unix socket: lines split across reads, lines
/// larger than its buffer, several lines in one read, prefixes, end of stream; with a client
/// that sleeps and one that polls.
@Suite(.serialized)
struct SocketConnectionTests {
    @Test(arguments: [0, 300])
    func readsLinesHoweverTheyArrive(busyPollMicros: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sock").path
        let listener = bindUnixSocket(path, type: Int32(SOCK_STREAM.rawValue))
        #expect(listen(listener, 1) == 0)
        defer { close(listener) }
        let big = [UInt8](repeating: UInt8(ascii: "b"), count: 200_000)
        let server = Thread {
            let fd = accept(listener, nil, nil)
            func write(_ bytes: [UInt8]) {
                var sent = 0
                while sent < bytes.count {
                    let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, 0) }
                    if n <= 0 { return }
                    sent += n
                }
            }
            write(Array("first\nsecond\n".utf8) + big + [0x0A])
            write(Array("spl".utf8))
            usleep(20_000)
            write(Array("it\n".utf8) + Array("x\n".utf8))
            close(fd)
        }
        server.start()
        let c = try SocketConnection(path: path, timeoutSeconds: 10, busyPollMicros: busyPollMicros)
        #expect(try c.readLine() == Array("first".utf8))
        #expect(try c.readLinePrefix(3) == Array("sec".utf8))
        #expect(try c.readLine() == big)
        #expect(try c.readLine() == Array("split".utf8))
        #expect(try c.readLinePrefix(10) == Array("x".utf8))
        #expect(try c.readLine() == nil)
    }
}
