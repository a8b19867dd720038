import Testing
@testable import FederatedSearchCore

/// The JSON parser accepts RFC 8259 JSON, rejects everything else with the byte offset, and
/// round-trips through the writer.
struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try JSONParser.parse(#"{"a":[1,-2.5,1e3,true,false,null],"b":{"c":"d\n\u00e9\ud83d\ude00"}}"#)
        let o = try #require(v.objectValue, "not an object")
        #expect(o.keys == ["a", "b"])
        #expect(o["a"] == [1, -2.5, 1000, true, false, nil])
        #expect(o["b"]?.objectValue?["c"] == .string("d\né😀"))
    }

    @Test func keepsKeyOrderAndLastDuplicateWins() throws {
        let v = try JSONParser.parse(#"{"z":1,"a":2,"z":3}"#)
        #expect(v.objectValue?.keys == ["z", "a"])
        #expect(v.objectValue?["z"] == 3)
    }

    @Test(arguments: [
        ("", 0), ("{", 1), ("[1,]", 3), ("{\"a\" 1}", 5), ("01", 0), ("1.", 2), ("\"abc", 4), ("tru", 0),
        ("{} x", 3), ("\"\\x\"", 2), ("\"\u{01}\"", 1), ("[1 2]", 3), ("\"\\ud800\"", 7),
    ])
    func rejectsMalformedInputWithItsOffset(text: String, offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.offset == offset, "\(text): \(error)") }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParseError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func limitsNestingDepth() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONParser.parse(ok)) != nil)
    }

    @Test func writerRoundTrips() throws {
        let values: [JSONValue] = [
            ["s": "quote \" backslash \\ tab \t ctrl \u{01} é", "n": 12, "f": 0.25, "neg": -3, "a": [true, nil]],
            .number(9_007_199_254_740_991), .number(1e300), .string(""), .array([]), .object(JSONObject()),
        ]
        for v in values {
            #expect(try JSONParser.parse(JSONWriter.bytes(v)) == v)
        }
        #expect(JSONWriter.string(.number(3)) == "3")
        #expect(JSONWriter.string(.number(.nan)) == "null")
    }

    @Test func randomBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\":,0123456789.eE-+ tfnrul\\u".utf8)
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            if let v = try? JSONParser.parse(bytes) {
                let back = try? JSONParser.parse(JSONWriter.bytes(v))
                #expect(back == v)
            }
        }
    }
}
