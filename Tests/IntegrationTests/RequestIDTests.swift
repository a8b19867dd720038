import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Request ids over the socket keep their JSON type: an integer id and the string of its
/// digits are two requests (they once collided as `duplicate_id`), each answered with the id
/// as it was sent.
@Suite(.serialized)
struct RequestIDTests {
    @Test func integerAndStringIdsAreDistinctAndEchoedAsSent() throws {
        let d = try EmbeddedDaemonTests.daemon(config: EmbeddedDaemonTests.config)
        defer { d.stop() }
        let c = try d.connect()
        try c.sendRaw(Array((#"{"id":5,"query":"star"}"# + "\n" + #"{"id":"5","query":"star"}"# + "\n").utf8))
        var ends: [String] = []
        while ends.count < 2, let line = try c.readLine() {
            let text = String(decoding: line, as: UTF8.self)
            #expect(!text.contains("duplicate_id"), "\(text)")
            if text.contains(#""type":"done""#) { ends.append(String(text.prefix(9))) }
        }
        #expect(Set(ends) == [#"{"id":5,""#, #"{"id":"5""#], "\(ends)")
        // A ping with an integer id gets its pong with that integer.
        try c.sendRaw(Array((#"{"id":12,"op":"ping"}"# + "\n").utf8))
        let pong = String(decoding: try #require(try c.readLine()), as: UTF8.self)
        #expect(pong.hasPrefix(#"{"id":12,"type":"pong""#), "\(pong)")
    }
}
