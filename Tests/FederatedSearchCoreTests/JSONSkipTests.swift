import Testing
@testable import FederatedSearchCore

/// The parser's cursor: `skipValue` accepts exactly what `parse` accepts, and walking a
/// document member by member reads what the tree holds.
struct JSONSkipTests {
    static let malformed = [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"abc", "tru", "{} x", "\"\\x\"", "\"\u{01}\"", "[1 2]",
        "\"\\ud800\"", "{\"a\":1,}", "{,}", "[,1]", "{\"a\":[1,{\"b\":}]}", "1e999", "\"\\u12\"", "nul", "-",
    ]

    @Test(arguments: malformed)
    func skipRejectsWhatParseRejects(text: String) {
        #expect(!JSONParser.isValid(Array(text.utf8)))
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
    }

    @Test func skipRejectsInvalidUTF8() {
        for bad: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22],  // a lead byte without its continuation
            [0x22, 0xC0, 0xAF, 0x22],  // an overlong form
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // a UTF-16 surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // past U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // cut short
            [0x22, 0xFF, 0x22],
        ] {
            #expect(!JSONParser.isValid(bad), "\(bad)")
            #expect((try? JSONParser.parse(bad)) == nil, "\(bad)")
        }
        #expect(JSONParser.isValid(Array("\"é€😀\"".utf8)))
    }

    /// Random texts from JSON's alphabet, and valid documents cut or changed at random:
    /// `isValid` and `parse` always agree.
    @Test func skipAgreesWithParseOnRandomInput() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\":,0123456789.eE-+ tfnrul\\u\u{e9}".utf8)
        let seed = Array(#"{"a":[1,-2.5,1e3,true,false,null],"b":{"c":"d\n\u00e9\ud83d\ude00 \u00e9t\u00e9"},"e":""}"#.utf8)
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            } else {
                bytes = seed
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    if Bool.random(using: &rng) { bytes[i] = alphabet.randomElement(using: &rng)! } else { bytes.remove(at: i) }
                }
            }
            #expect(JSONParser.isValid(bytes) == ((try? JSONParser.parse(bytes)) != nil), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test func walksObjectsAndArraysMemberByMember() throws {
        let text = Array(#" { "a" : [ 1 , {"x":null} ] , "b\u0021" : "s" , "c" : {} } "#.utf8)
        var p = JSONParser(bytes: text)
        try p.enterObject()
        #expect(try p.nextKey() == "a")
        try p.enterArray()
        #expect(try p.nextElement())
        #expect(try p.parseValue() == 1)
        #expect(try p.nextElement())
        try p.skipValue()
        #expect(try !p.nextElement())
        let key = try #require(try p.nextKeyRange())
        #expect(String(decoding: text[key], as: UTF8.self) == #"b\u0021"#)
        #expect(try p.parseValue() == "s")
        #expect(try p.nextKey() == "c")
        #expect(try p.parseValue() == .object(JSONObject()))
        #expect(try p.nextKey() == nil)
        try p.expectEnd()
    }

    @Test func memberListsReadLikeObjects() throws {
        let text = Array(#"xx,"title":"Star","year":1977, "title":"Wars"yy"#.utf8)
        var p = JSONParser(bytes: text, range: 2..<(text.count - 2))
        let o = try p.parseMemberList()
        #expect(o == ["title": "Wars", "year": 1977])
        var bad = JSONParser(bytes: Array(#""title":1"#.utf8))
        #expect(throws: JSONParseError.self) { try bad.parseMemberList() }
    }
}

/// The quick path of `skipValue` against the checking one, on what it handles itself and on
/// what it hands back.
struct JSONQuickSkipTests {
    /// Where `skipValue` leaves the cursor in `text` (nil if it throws).
    static func skipEnd(_ text: [UInt8], maxDepth: Int = 128) -> Int? {
        var p = JSONParser(bytes: text, maxDepth: maxDepth)
        do {
            try p.skipValue()
            return p.position
        } catch { return nil }
    }

    @Test func landsWhereTheValueEnds() throws {
        let docs = [
            #"{"a":[1,-2.5,0,true,false,null,"x"],"b":{"c":"d\n\"\/\u00e9\ud83d\ude00 é"},"e":"", "f" : [ ] , "g":{}}"#,
            #"[[[]],[{}],{"a":{"b":[1e3]}}]"#, "-0.25", "\"\"", "[ 1 , 2 ]", #"{"title":"Star \"Wars\"","n":12345678901234567890}"#,
        ]
        for d in docs {
            let text = Array((d + " ,tail").utf8)
            #expect(Self.skipEnd(text) == d.utf8.count, "\(d)")
            #expect(throws: Never.self) { try JSONParser.parse(d) }
        }
    }

    /// The quick path itself takes strings with escapes and non-ASCII, numbers without
    /// exponents and nesting, and hands back an exponent.
    @Test func theQuickPathTakesTheCommonCases() {
        for (d, quick) in [
            (#"{"a":[1,-2.5,0,true,false,null],"b":{"c":"d\n\"\u00e9\ud83d\ude00 é"}}"#, true), ("[[{}],[]]", true),
            ("[1e3]", false), ("[1,]", false),
        ] {
            var p = JSONParser(bytes: Array(d.utf8))
            #expect(p.skipQuickly() == quick, "\(d)")
            #expect(p.position == (quick ? d.utf8.count : 0), "\(d)")
        }
    }

    @Test func rejectsBadEscapesAndSurrogates() {
        for bad in [#""\ud800x""#, #""\udc00""#, #""\ud800\u0041""#, #""\u12g4""#, #""\q""#, #""\"#, #"["a\"]"#, "[\"\u{1F}\"]"] {
            #expect(Self.skipEnd(Array(bad.utf8)) == nil, "\(bad)")
            #expect(throws: JSONParseError.self) { try JSONParser.parse(bad) }
        }
    }

    /// Past 64 levels the checking path takes over; `maxDepth` holds on both.
    @Test func deepNestingAndTheDepthLimit() {
        let deep = Array((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8)
        #expect(Self.skipEnd(deep) == deep.count)
        #expect(Self.skipEnd(deep, maxDepth: 99) == nil)
        let shallow = Array((String(repeating: "{\"a\":", count: 10) + "1" + String(repeating: "}", count: 10)).utf8)
        #expect(Self.skipEnd(shallow, maxDepth: 10) == shallow.count)
        #expect(Self.skipEnd(shallow, maxDepth: 9) == nil)
    }

    /// Random documents built from every kind of value: skipping ends where parsing does.
    @Test func agreesWithParseOnRandomDocuments() {
        var rng = SystemRandomNumberGenerator()
        func value(_ depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &rng) {
            case 0: return ["true", "false", "null"].randomElement(using: &rng)!
            case 1: return ["0", "-1", "3.25", "1e5", "-0.5E-3", "123456789012345678901"].randomElement(using: &rng)!
            case 2, 3: return ["\"\"", "\"abc\"", #""a\"b\\c\/\n\u0041""#, "\"é😀\"", #""\ud83d\ude00""#].randomElement(using: &rng)!
            case 4: return "[" + (0..<Int.random(in: 0...3, using: &rng)).map { _ in value(depth + 1) }.joined(separator: " , ") + "]"
            default:
                return "{" + (0..<Int.random(in: 0...3, using: &rng)).map { k in "\"k\(k)\" :\(value(depth + 1))" }.joined(separator: ",")
                    + "}"
            }
        }
        for _ in 0..<2000 {
            let d = value(0)
            let text = Array((" " + d + " ]").utf8)
            var p = JSONParser(bytes: text)
            _ = try? p.parseValue()
            #expect(Self.skipEnd(text) == p.position, "\(d)")
        }
    }
}
