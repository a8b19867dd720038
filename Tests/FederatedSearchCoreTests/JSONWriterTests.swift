import Testing
import FederatedSearchCore

/// String escaping (the writer skips clean text eight bytes at a time) against a byte-by-byte
/// reference, and round trips through the parser.
struct JSONWriterTests {
    /// The escaping rules written the plain way: one byte at a time.
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x22]
        let hex = Array("0123456789abcdef".utf8)
        for b in bytes {
            switch b {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20: out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            default: out.append(b)
            }
        }
        out.append(0x22)
        return out
    }

    @Test func escapesLikeTheByteByByteReference() {
        // Deterministic pseudo-random strings: mostly plain text, with quotes, backslashes,
        // control characters and multi-byte characters at every offset of the 8-byte words.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let specials: [[UInt8]] = [
            [0x22], [0x5C], [0x0A], [0x09], [0x0D], [0x01], [0x1F], [0x7F], Array("é".utf8), Array("€".utf8), [0x20], [0x21], [0x5B],
            [0x5D],
        ]
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            let length = Int(next() % 40)
            for _ in 0..<length {
                if next() % 6 == 0 {
                    bytes += specials[Int(next() % UInt64(specials.count))]
                } else {
                    bytes.append(UInt8(ascii: "a") + UInt8(next() % 26))
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            var out: [UInt8] = []
            JSONWriter.writeString(text, into: &out)
            #expect(out == Self.reference(Array(text.utf8)), "\(Array(text.utf8))")
            #expect((try? JSONParser.parse(out)) == .string(text))
        }
    }

    @Test func piecesWrittenAlikeAsAWholeString() {
        let text = "a \"quoted\" \\ path\twith tab and a long clean tail of plain words"
        var whole: [UInt8] = []
        JSONWriter.writeString(text, into: &whole)
        var pieces: [UInt8] = [0x22]
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { b in
            JSONWriter.writeEscaped(UnsafeBufferPointer(rebasing: b[0..<7]), into: &pieces)
            JSONWriter.writeEscaped(UnsafeBufferPointer(rebasing: b[7...]), into: &pieces)
        }
        pieces.append(0x22)
        #expect(pieces == whole)
    }
}
