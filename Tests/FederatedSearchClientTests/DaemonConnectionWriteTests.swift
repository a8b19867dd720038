import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Requests are written on the caller's thread while the socket takes them, and through the
/// writer queue once it is full: against a listener that does not read (a stand-in for a
/// daemon that stopped reading; a fake, for fault injection), sending never blocks, and when
/// it reads, every line arrives whole and in order.
struct DaemonConnectionWriteTests {
    /// A listening socket at a fresh path; the accepted connection is read only when asked.
    final class Listener: Sendable {
        let path = "/tmp/fs-write-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let fd: Int32

        init() throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            let bound = UnixSocketTransport.withAddress(path) { bind(fd, $0, $1) }
            guard fd >= 0, bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
        }

        deinit {
            close(fd)
            unlink(path)
        }

        /// Accepts one connection and reads from it until `count` lines have arrived.
        func readLines(_ count: Int) -> [[UInt8]] {
            let client = accept(fd, nil, nil)
            defer { close(client) }
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            var lines = 0
            while lines < count {
                let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                lines += chunk[0..<n].count(where: { $0 == 0x0A })
                buffer.append(contentsOf: chunk[0..<n])
            }
            return buffer.split(separator: 0x0A).map(Array.init)
        }
    }

    @Test func linesLargerThanTheSocketBufferArriveWholeAndInOrder() async throws {
        let listener = try Listener()
        let connection = DaemonConnection(path: listener.path)
        defer { connection.close() }
        // 16 searches of about 200 KB each: far more than a Unix socket buffers.
        let query = String(repeating: "star wars ", count: 20_000)
        var responses: [Response] = []
        for _ in 0..<16 {
            responses.append(try connection.send(.search(SearchRequest(query: query, targets: [SearchTarget(index: "movies")]))))
        }
        // Every send returned with nothing read yet; now the listener reads them all.
        let lines = listener.readLines(16)
        #expect(lines.count == 16)
        for (i, line) in lines.enumerated() {
            let request = try #require(try JSONParser.parse(line).objectValue)
            #expect(request["id"]?.stringValue == responses[i].id)
            #expect(request["op"] == "search")
            #expect(request["query"]?.stringValue == query)
        }
    }
}
