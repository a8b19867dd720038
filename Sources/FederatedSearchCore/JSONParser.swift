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
public struct JSONParser {
    private let bytes: [UInt8]
    private var pos = 0
    private var depth = 0
    private let maxDepth: Int

    /// Parses one complete JSON text.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes: bytes, maxDepth: maxDepth)
        p.skipWhitespace()
        let value = try p.parseValue()
        p.skipWhitespace()
        if p.pos != bytes.count { throw p.error("unexpected data after the JSON value") }
        return value
    }

    /// Parses one complete JSON text from a string.
    public static func parse(_ text: String, maxDepth: Int = 128) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: pos, reason: reason) }

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
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
            guard i < bytes.count, bytes[i] == b else { throw error("invalid literal, expected '\(word)'") }
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
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
                throw error("expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw error("expected ':' after key") }
            pos += 1
            skipWhitespace()
            let value = try parseValue()
            object[key] = value
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "}") { pos += 1; break }
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
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue())
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
            if bytes[pos] == UInt8(ascii: "]") { pos += 1; break }
            throw error("expected ',' or ']' in array")
        }
        depth -= 1
        return .array(array)
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        pos += 1  // opening quote
        let start = pos
        // Fast path: no escapes.
        while pos < bytes.count {
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
        while pos < bytes.count {
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
            guard pos < bytes.count else { break }
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
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
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
        guard pos + 4 <= bytes.count else { throw error("truncated unicode escape") }
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

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = pos
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number") }
        if bytes[pos] == UInt8(ascii: "0"), pos + 1 < bytes.count, isDigit(bytes[pos + 1]) {
            throw error("leading zero in number")
        }
        var integral = true
        while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            integral = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits after '.'") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            integral = false
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected digits in exponent") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if integral, pos - start <= 15 {
            var v: Int64 = 0
            var i = start
            let negative = bytes[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            while i < pos {
                v = v * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
                i += 1
            }
            return Double(negative ? -v : v)
        }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return d
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
