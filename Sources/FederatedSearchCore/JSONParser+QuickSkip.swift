extension JSONParser {
    /// Steps over the value at the cursor (after any whitespace) in one loop, with no call per
    /// token and nothing built: the fast path of ``skipValue()``, which hits' attributes and
    /// highlights go through by the thousand per answer.
    ///
    /// It takes only what the checking path takes, and gives up (false, cursor unmoved) on
    /// anything else, and on what it leaves to that path: exponents and very long numbers
    /// (whose range must be checked), nesting past 64 levels or `maxDepth`. The caller then
    /// goes over the value again the checking way, which reports the error.
    mutating func skipQuickly() -> Bool {
        // Read through a span (no reference counting per call), which must end before the
        // cursor moves.
        guard let after = Self.quickEnd(bytes.span, from: position, to: end, room: min(64, maxDepth - depth)) else { return false }
        position = after
        return true
    }

    /// Where the value at `from` in `b[..<n]` ends, if the quick path takes it; `room`: the
    /// levels of nesting it may open.
    private static func quickEnd(_ b: Span<UInt8>, from: Int, to n: Int, room: Int) -> Int? {
        var i = from
        /// One bit per open container, innermost lowest: 1 an object, 0 an array.
        var kinds: UInt64 = 0
        var level = 0

        /// Moves `i` past whitespace.
        func whitespace(_ i: inout Int) {
            while i < n {
                switch b[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }
        /// Moves `i` (on an opening quote) past the string; false if it has escapes, a control
        /// character, invalid UTF-8 or no end.
        func string(_ i: inout Int) -> Bool {
            let start = i + 1
            var k = start
            var ascii = true
            while true {
                // Eight bytes at a time while none is a quote, a backslash or a control
                // character (long attributes: titles, descriptions); non-ASCII is only noted,
                // to be checked as UTF-8 at the end.
                while k + 8 <= n {
                    let w =
                        UInt64(b[k]) | UInt64(b[k + 1]) << 8 | UInt64(b[k + 2]) << 16 | UInt64(b[k + 3]) << 24
                        | UInt64(b[k + 4]) << 32 | UInt64(b[k + 5]) << 40 | UInt64(b[k + 6]) << 48 | UInt64(b[k + 7]) << 56
                    if Self.hasStringStop(w) { break }
                    if w & 0x8080_8080_8080_8080 != 0 { ascii = false }
                    k += 8
                }
                // Plain printable ASCII (not a quote or a backslash) is stepped over; the test
                // folds control characters and non-ASCII into one unsigned comparison.
                while k < n {
                    let c = b[k]
                    if c &- 0x20 >= 0x60 || c == 0x22 || c == 0x5C { break }
                    k += 1
                }
                guard k < n else { return false }
                let c = b[k]
                if c == 0x22 {
                    // Escapes are ASCII, so a character cut by one is invalid here as in the
                    // string it stands for.
                    if !ascii, !Self.isValidUTF8(b, start..<k) { return false }
                    i = k + 1
                    return true
                } else if c >= 0x80 {
                    ascii = false
                    k += 1
                } else if c == 0x5C, k + 1 < n {
                    guard let length = escape(at: k) else { return false }
                    k += length
                } else {
                    return false  // a control character, or a backslash at the end
                }
            }
        }
        /// The length of the escape whose backslash is at `k`, if it is valid (a `\u` of a
        /// high surrogate with its low one); `k + 1 < n`.
        func escape(at k: Int) -> Int? {
            switch b[k + 1] {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                return 2
            case UInt8(ascii: "u"):
                guard let v = hex4(at: k + 2) else { return nil }
                if (0xDC00..<0xE000).contains(v) { return nil }
                guard (0xD800..<0xDC00).contains(v) else { return 6 }
                guard k + 7 < n, b[k + 6] == UInt8(ascii: "\\"), b[k + 7] == UInt8(ascii: "u"), let low = hex4(at: k + 8),
                    (0xDC00..<0xE000).contains(low)
                else { return nil }
                return 12
            default:
                return nil
            }
        }
        /// The four hex digits at `j`, if there are four.
        func hex4(at j: Int) -> UInt32? {
            guard j + 4 <= n else { return nil }
            var v: UInt32 = 0
            for k in j..<(j + 4) {
                let d = b[k]
                switch d {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = v << 4 | UInt32(d - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): v = v << 4 | UInt32(d - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): v = v << 4 | UInt32(d - UInt8(ascii: "A") + 10)
                default: return nil
                }
            }
            return v
        }

        while true {
            // A value.
            whitespace(&i)
            guard i < n else { return nil }
            switch b[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = b[i] == UInt8(ascii: "{")
                guard level < room else { return nil }
                i += 1
                whitespace(&i)
                guard i < n else { return nil }
                if b[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1  // empty: a whole value
                    break
                }
                kinds = kinds << 1 | (isObject ? 1 : 0)
                level += 1
                if isObject {
                    guard b[i] == UInt8(ascii: "\""), string(&i) else { return nil }
                    whitespace(&i)
                    guard i < n, b[i] == UInt8(ascii: ":") else { return nil }
                    i += 1
                }
                continue  // the first member's or element's value
            case UInt8(ascii: "\""):
                guard string(&i) else { return nil }
            case UInt8(ascii: "t"):
                guard i + 4 <= n, b[i + 1] == UInt8(ascii: "r"), b[i + 2] == UInt8(ascii: "u"), b[i + 3] == UInt8(ascii: "e")
                else { return nil }
                i += 4
            case UInt8(ascii: "f"):
                guard i + 5 <= n, b[i + 1] == UInt8(ascii: "a"), b[i + 2] == UInt8(ascii: "l"), b[i + 3] == UInt8(ascii: "s"),
                    b[i + 4] == UInt8(ascii: "e")
                else { return nil }
                i += 5
            case UInt8(ascii: "n"):
                guard i + 4 <= n, b[i + 1] == UInt8(ascii: "u"), b[i + 2] == UInt8(ascii: "l"), b[i + 3] == UInt8(ascii: "l")
                else { return nil }
                i += 4
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                if b[i] == UInt8(ascii: "-") { i += 1 }
                guard i < n, Self.isDigit(b[i]) else { return nil }
                if b[i] == UInt8(ascii: "0") {
                    i += 1
                    if i < n, Self.isDigit(b[i]) { return nil }  // a leading zero
                } else {
                    while i < n, Self.isDigit(b[i]) { i += 1 }
                }
                if i < n, b[i] == UInt8(ascii: ".") {
                    i += 1
                    guard i < n, Self.isDigit(b[i]) else { return nil }
                    while i < n, Self.isDigit(b[i]) { i += 1 }
                }
                // An exponent, or digits enough to pass Double's range: the checking path
                // converts it to see that it is finite.
                if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { return nil }
                if i - start > 300 { return nil }
            default:
                return nil
            }
            // After a value: the next member or element, or the ends of containers.
            var next = false
            while level > 0 {
                whitespace(&i)
                guard i < n else { return nil }
                let isObject = kinds & 1 == 1
                if b[i] == UInt8(ascii: ",") {
                    i += 1
                    if isObject {
                        whitespace(&i)
                        guard i < n, b[i] == UInt8(ascii: "\""), string(&i) else { return nil }
                        whitespace(&i)
                        guard i < n, b[i] == UInt8(ascii: ":") else { return nil }
                        i += 1
                    }
                    next = true
                    break
                }
                guard b[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return nil }
                i += 1
                kinds >>= 1
                level -= 1
            }
            if !next { return i }
        }
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    /// Whether any of the eight bytes of `w` is a quote, a backslash or below 0x20. Each test
    /// is the classic "has a zero byte" one (`(x - 0x01…) & ~x & 0x80…`), exact for whether
    /// any byte matches: a borrow starts only at a byte that does.
    @inline(__always) static func hasStringStop(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let control = (w &- ones &* 0x20) & ~w
        return (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & (ones &* 0x80) != 0
    }
}
