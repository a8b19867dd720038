import Testing
@testable import FederatedSearchProtocol

/// Lines are split on \n whatever the chunking, CRLF is accepted, and an over-long line stops
/// the framer with one error.
struct LineFramerTests {
    @Test func splitsLinesAcrossArbitraryChunks() {
        // Blank lines (empty, spaces, tabs, a lone CR) are skipped: no request, no answer.
        let text = Array("{\"a\":1}\n{\"b\":2}\r\n\n   \n\t \r\n{\"c\":3}\n".utf8)
        for chunk in 1...text.count {
            var f = LineFramer(maxLineBytes: 100)
            var lines: [String] = []
            var i = 0
            while i < text.count {
                for e in f.feed(text[i..<min(i + chunk, text.count)]) {
                    if case .line(let l) = e { lines.append(String(decoding: l, as: UTF8.self)) }
                }
                i += chunk
            }
            #expect(lines == ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"], "chunk \(chunk)")
            #expect(f.pendingCount == 0)
        }
    }

    @Test func overLongLineIsReportedOnceEvenWithoutNewline() {
        var f = LineFramer(maxLineBytes: 10)
        #expect(f.feed(Array("short\n".utf8)) == [.line(Array("short".utf8))])
        #expect(f.feed(Array(repeating: UInt8(ascii: "x"), count: 11)) == [.lineTooLong(length: 11)])
        #expect(f.feed(Array("more\n".utf8)) == [])
    }

    @Test func lineExactlyAtTheLimitPasses() {
        var f = LineFramer(maxLineBytes: 4)
        #expect(f.feed(Array("abcd\nabcde\n".utf8)) == [.line(Array("abcd".utf8)), .lineTooLong(length: 5)])
    }

    /// A CRLF line exactly at the limit whose `\n` arrives in the next read (a chunk boundary
    /// between `\r` and `\n`) was refused as over-long: the `\r` was counted as part of it.
    @Test func crlfLineAtTheLimitPassesWhenTheNewlineArrivesLater() {
        var f = LineFramer(maxLineBytes: 4)
        #expect(f.feed(Array("abcd\r".utf8)) == [])
        #expect(f.feed(Array("\n".utf8)) == [.line(Array("abcd".utf8))])
        #expect(f.feed(Array("abcde".utf8)) == [.lineTooLong(length: 5)])
    }
}
