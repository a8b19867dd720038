/// An error in JSON text, with the byte offset where it was found.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Zero-based byte offset into the input.
    public let offset: Int
    /// What was wrong there.
    public let reason: String
    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Rejects trailing garbage, invalid UTF-8, unescaped control characters, leading zeros and
/// nesting deeper than `maxDepth` (so hostile input cannot overflow the stack).
///
/// Besides ``parse(_:maxDepth:)``, which builds a whole tree, it is a cursor: a decoder that
/// knows its document's shape walks objects with ``enterObject()`` and ``nextKey()``, arrays
/// with ``enterArray()`` and ``nextElement()``, builds only the values it wants with
/// ``parseValue()`` and steps over the rest with ``skipValue()``, which checks them as
/// strictly without allocating anything.
public struct JSONParser {
    public let bytes: [UInt8]
    /// The offset of the next byte to read.
    public internal(set) var position: Int
    /// Where the text read ends (the end of `bytes`, or of the range given).
    public let end: Int
    var depth = 0
    let maxDepth: Int

    /// Parses one complete JSON text.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        let value = try p.parseValue()
        try p.expectEnd()
        return value
    }

    /// Parses one complete JSON text from a string.
    public static func parse(_ text: String, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// Whether `bytes` is one complete, valid JSON text (checked without building it).
    public static func isValid(_ bytes: [UInt8], maxDepth: Int = 128) -> Bool {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        do {
            try p.skipValue()
            try p.expectEnd()
            return true
        } catch { return false }
    }

    /// A cursor at the start of `bytes`.
    public init(bytes: [UInt8], maxDepth: Int = 128) {
        self.init(bytes: bytes, range: 0..<bytes.count, maxDepth: maxDepth)
    }

    /// A cursor over `bytes[range]` only (a value inside a larger buffer, read without copying it).
    public init(bytes: [UInt8], range: Range<Int>, maxDepth: Int = 128) {
        self.bytes = bytes
        self.position = range.lowerBound
        self.end = range.upperBound
        self.maxDepth = maxDepth
    }

    /// Throws unless only whitespace is left.
    public mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        if position != end { throw error("unexpected data after the JSON value") }
    }

    /// Consumes the `{` of an object (after any whitespace); throws if the next value is not one.
    public mutating func enterObject() throws(JSONParseError) {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: "{") else { throw error("expected an object") }
        try enter()
        position += 1
        needsComma = false
    }

    /// Consumes the `{` of an object (after any whitespace) and its members up to `offset`
    /// without reading them, for a caller that knows those bytes equal members checked before
    /// at this depth or deeper, ending after a member's value. The cursor is then where
    /// ``nextKey()`` and that value would have left it.
    public mutating func enterObject(resumingAt offset: Int) throws(JSONParseError) {
        try enterObject()
        guard offset >= position, offset <= end else { throw error("resuming outside the text") }
        position = offset
        needsComma = true
    }

    /// The next member's key, with the cursor on its value; nil (and the object left) at its `}`.
    public mutating func nextKey() throws(JSONParseError) -> String? {
        guard try nextKeyStart() else { return nil }
        let key = try parseString()
        try expectColon()
        return key
    }

    /// Moves to the opening quote of the next member's key (past a comma); false, with the
    /// object left, at its `}`.
    private mutating func nextKeyStart() throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < end else { throw error("unexpected end of input in object") }
        if bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            needsComma = true
            return false
        }
        if needsComma {
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or '}' in object") }
            position += 1
            skipWhitespace()
        }
        guard position < end, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string key") }
        return true
    }

    /// Moves past the `:` after a key, to the member's value.
    private mutating func expectColon() throws(JSONParseError) {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
        position += 1
        skipWhitespace()
        needsComma = true
    }

    /// Consumes the `[` of an array (after any whitespace); throws if the next value is not one.
    public mutating func enterArray() throws(JSONParseError) {
        skipWhitespace()
        guard position < end, bytes[position] == UInt8(ascii: "[") else { throw error("expected an array") }
        try enter()
        position += 1
        needsComma = false
    }

    /// Whether another element follows, with the cursor on it; false (and the array left) at its `]`.
    public mutating func nextElement() throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < end else { throw error("unexpected end of input in array") }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            needsComma = true
            return false
        }
        if needsComma {
            guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' or ']' in array") }
            position += 1
            skipWhitespace()
        }
        needsComma = true
        return true
    }

    /// Whether the value at the cursor (after any whitespace) starts with `byte` (`{`, `[`, `"`, ...).
    public mutating func peek(_ byte: UInt8) -> Bool {
        skipWhitespace()
        return position < end && bytes[position] == byte
    }

    /// Set after a member or element, so the next one must be preceded by a comma.
    private var needsComma = false

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: position, reason: reason) }

    /// `position`, under the short name the parsing code uses.
    var pos: Int {
        get { position }
        set { position = newValue }
    }

    private mutating func skipWhitespace() {
        while pos < end {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    /// Builds the value at the cursor (after any whitespace) and moves past it.
    public mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard pos < end else { throw error("unexpected end of input, expected a value") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(printable(bytes[pos]))', expected a value")
        }
    }

    private func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }

    private mutating func expectLiteral(_ word: String) throws(JSONParseError) {
        var i = pos
        for b in word.utf8 {
            guard i < end, bytes[i] == b else { throw error("invalid literal, expected '\(word)'") }
            i += 1
        }
        pos = i
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw error("nesting deeper than \(maxDepth)") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var object = JSONObject()
        skipWhitespace()
        if pos < end, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard pos < end, bytes[pos] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard pos < end, bytes[pos] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            pos += 1
            skipWhitespace()
            let value = try parseValue()
            object[key] = value
            skipWhitespace()
            guard pos < end else { throw error("unexpected end of input in object") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                break
            }
            throw error("expected ',' or '}' in object")
        }
        depth -= 1
        return .object(object)
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if pos < end, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard pos < end else { throw error("unexpected end of input in array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                break
            }
            throw error("expected ',' or ']' in array")
        }
        depth -= 1
        return .array(array)
    }

    /// The string at the cursor (which must be on its opening quote), moving past it.
    public mutating func parseString() throws(JSONParseError) -> String {
        guard pos < end, bytes[pos] == UInt8(ascii: "\"") else { throw error("expected a string") }
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes.
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let s = try decodeUTF8(start, pos)
                pos += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw error("unescaped control character in string") }
            pos += 1
        }
        var out: [UInt8] = Array(bytes[start..<pos])
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw JSONParseError(offset: start, reason: "invalid UTF-8 in string")
                }
                return s
            }
            if b < 0x20 { throw error("unescaped control character in string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            pos += 1
            guard pos < end else { break }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard pos + 1 < end, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired UTF-16 surrogate") }
                    pos += 2
                    let low = try parseHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("invalid UTF-16 low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw error("unpaired UTF-16 surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw JSONParseError(offset: pos - 1, reason: "invalid escape '\\\(printable(e))'")
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard pos + 4 <= end else { throw error("truncated unicode escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in unicode escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    private func decodeUTF8(_ start: Int, _ end: Int) throws(JSONParseError) -> String {
        // ASCII is the common case; validate it cheaply.
        var ascii = true
        for i in start..<end where bytes[i] >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes[start..<end], as: UTF8.self) }
        guard let s = String(validating: bytes[start..<end], as: UTF8.self) else {
            throw JSONParseError(offset: start, reason: "invalid UTF-8 in string")
        }
        return s
    }
}

// MARK: - Checking without building

extension JSONParser {
    /// Moves past the value at the cursor (after any whitespace), checking it as strictly as
    /// ``parseValue()`` does, without building it or allocating.
    public mutating func skipValue() throws(JSONParseError) {
        if skipQuickly() { return }
        skipWhitespace()
        guard position < end else { throw error("unexpected end of input, expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try enterObject()
            while try nextKeyRange() != nil { try skipValue() }
        case UInt8(ascii: "["):
            try enterArray()
            while try nextElement() { try skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): _ = try parseValue()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseValue()
        default: _ = try parseValue()  // reports the unexpected character
        }
    }

    /// Like ``nextKey()``, but gives the key's raw bytes (between its quotes, escapes as
    /// written) instead of building a string; nil at the object's end.
    public mutating func nextKeyRange() throws(JSONParseError) -> Range<Int>? {
        guard try nextKeyStart() else { return nil }
        let start = position + 1
        try skipString()
        let end = position - 1
        try expectColon()
        return start..<end
    }

    /// Moves past the string at the cursor, checking its escapes and UTF-8.
    public mutating func skipString() throws(JSONParseError) {
        guard position < end, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a string") }
        let start = position + 1
        var i = start
        var ascii = true
        var done = false
        // One table load per byte: plain bytes are stepped over, non-ASCII ones noted (their
        // UTF-8 is checked afterwards), and a quote, a backslash or a control character ends
        // the scan.
        let classes = Self.stringByteClasses
        while i < end {
            let k = classes[Int(bytes[i])]
            if k == 0 {
                i += 1
            } else if k == Self.nonASCII {
                ascii = false
                i += 1
            } else {
                done = k == Self.quote
                break
            }
        }
        if done {
            if !ascii, !Self.isValidUTF8(bytes, start..<i) { throw JSONParseError(offset: start, reason: "invalid UTF-8 in string") }
            position = i + 1
            return
        }
        // Escapes or a control character: the building path checks them and reports the error.
        _ = try parseString()
    }

    static let quote: UInt8 = 1
    static let backslash: UInt8 = 2
    static let nonASCII: UInt8 = 4
    /// Per byte inside a string: 0 plain, 1 the closing quote, 2 a backslash, 3 a control
    /// character, 4 part of a non-ASCII character.
    static let stringByteClasses: [UInt8] = (0..<256).map { b in
        switch b {
        case 0x22: quote
        case 0x5C: backslash
        case 0..<0x20: 3
        case 0x80...: nonASCII
        default: 0
        }
    }

    /// The next key of a member list (`,"a":1,"b":2`: the members of an object without its
    /// braces, each after a comma), with the cursor on its value; nil at the list's end.
    public mutating func nextListedKey() throws(JSONParseError) -> String? {
        skipWhitespace()
        guard position < end else { return nil }
        guard bytes[position] == UInt8(ascii: ",") else { throw error("expected ',' before a member") }
        position += 1
        skipWhitespace()
        let key = try parseString()
        try expectColon()
        return key
    }

    /// The value of member `name` of the object at the cursor (or, with `listed`, of the
    /// member list: see ``nextListedKey()``), building no other member; the last one if the
    /// name is repeated, as in a parsed object. Nil if absent or the text is not such a value.
    public mutating func member(_ name: String, listed: Bool = false) -> JSONValue? {
        if !listed, (try? enterObject()) == nil { return nil }
        var found: JSONValue?
        while let key = try? (listed ? nextListedKey() : nextKey()) {
            if key == name { found = try? parseValue() } else if (try? skipValue()) == nil { return found }
        }
        return found
    }

    /// Builds the object that a member list (see ``nextListedKey()``) stands for.
    public mutating func parseMemberList() throws(JSONParseError) -> JSONObject {
        var object = JSONObject()
        while let key = try nextListedKey() { object[key] = try parseValue() }
        return object
    }

    /// Whether `bytes[range]` is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
    static func isValidUTF8(_ bytes: [UInt8], _ range: Range<Int>) -> Bool { isValidUTF8(bytes.span, range) }

    /// Whether `bytes[range]` is well-formed UTF-8, read through a span.
    static func isValidUTF8(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        var i = range.lowerBound
        let end = range.upperBound
        while i < end {
            let b = bytes[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let need: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: need = 1
            case 0xE0:
                need = 2
                lo = 0xA0
            case 0xE1...0xEC, 0xEE, 0xEF: need = 2
            case 0xED:
                need = 2
                hi = 0x9F
            case 0xF0:
                need = 3
                lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4:
                need = 3
                hi = 0x8F
            default: return false
            }
            guard i + need < end else { return false }
            let first = bytes[i + 1]
            guard first >= lo, first <= hi else { return false }
            for k in stride(from: 2, through: need, by: 1) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += need + 1
        }
        return true
    }
}
