/// Serialises ``JSONValue``s to compact UTF-8 JSON, appending to a byte buffer.
///
/// Writing appends to one buffer rather than building strings, so a frame of hits is
/// serialised with one allocation in the common case.
public enum JSONWriter {
    /// Returns the compact JSON text of `value` as bytes.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    /// Returns the compact JSON text of `value`.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// Appends the JSON text of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b):
            if b {
                out.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
            } else {
                out.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
            }
        case .number(let n): writeNumber(n, into: &out)
        case .string(let s): writeString(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            var first = true
            for v in a {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                write(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for e in o.entries {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(e.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(e.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `,"key":value` for each member of `object` but the one named `except`: the
    /// members of an object whose braces (and first members) the caller writes itself.
    public static func writeMembers(of object: JSONObject, except: String? = nil, into out: inout [UInt8]) {
        for e in object.entries where e.key != except {
            out.append(UInt8(ascii: ","))
            writeString(e.key, into: &out)
            out.append(UInt8(ascii: ":"))
            write(e.value, into: &out)
        }
    }

    /// Appends a number; integral values within 2^53 have no fraction, non-finite ones become null.
    public static func writeNumber(_ n: Double, into out: inout [UInt8]) {
        guard n.isFinite else {
            out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        if n.rounded() == n, abs(n) < 9.007_199_254_740_992e15 {
            var v = Int64(n)
            if v == 0 {
                out.append(UInt8(ascii: "0"))
                return
            }
            if v < 0 {
                out.append(UInt8(ascii: "-"))
                v = -v
            }
            // At most 16 digits (|v| < 2^53): written backwards into a fixed buffer, no allocation.
            var digits: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &digits) { buffer in
                var i = buffer.count
                while v > 0 {
                    i -= 1
                    buffer[i] = UInt8(ascii: "0") + UInt8(v % 10)
                    v /= 10
                }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[i...]))
            }
            return
        }
        var text = n.description
        text.withUTF8 { out.append(contentsOf: $0) }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends a quoted, escaped string. Runs of bytes that need no escaping are copied whole.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // A native string lends its bytes without a copy (and without the retain and release
        // that `withUTF8` on a mutable copy costs); others are made contiguous first.
        if s.utf8.withContiguousStorageIfAvailable({ writeEscaped($0, into: &out) }) == nil {
            var s = s
            s.withUTF8 { writeEscaped($0, into: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the escaped UTF-8 `bytes` of a string's contents, without quotes, exactly as
    /// ``writeString(_:into:)`` writes them: writers that build a string from pieces (a value
    /// with highlight tags) write each piece with this.
    ///
    /// Most text needs no escaping, so it is scanned eight bytes at a time (one unaligned
    /// 64-bit load and a few bit operations tell whether any of them is a control character,
    /// a quote or a backslash), and clean runs are appended with one copy.
    ///
    /// Pointer use: `bytes` is a caller's borrowed buffer (a `withUTF8` or
    /// `withUnsafeBufferPointer` scope) and is only read; the 8-byte loads happen only where
    /// `i + 8 <= n`, inside it.
    public static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        var runStart = 0
        var i = 0
        while i < n {
            while i &+ 8 <= n && !mayNeedEscape(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i &+= 8 }
            if i >= n { break }
            let b = base[i]
            guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else {
                i &+= 1
                continue
            }
            // A rebased buffer appends with one memcpy (a slice goes element by element).
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            runStart = i &+ 1
            switch b {
            case UInt8(ascii: "\""):
                out.append(0x5C)
                out.append(0x22)
            case UInt8(ascii: "\\"):
                out.append(0x5C)
                out.append(0x5C)
            case 0x0A:
                out.append(0x5C)
                out.append(UInt8(ascii: "n"))
            case 0x0D:
                out.append(0x5C)
                out.append(UInt8(ascii: "r"))
            case 0x09:
                out.append(0x5C)
                out.append(UInt8(ascii: "t"))
            default:
                out.append(0x5C)
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0xF)])
            }
            i &+= 1
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the eight bytes of `w` may need escaping: exact for "some byte is below
    /// 0x20, or is `"` or `\\`" (the classic has-less-than and has-zero-byte tests; bytes of
    /// 0x80 and above never match), so a false answer lets the eight bytes be copied as they are.
    @inline(__always) static func mayNeedEscape(_ w: UInt64) -> Bool {
        let control = (w &- ones &* 0x20) & ~w & highs
        let q = w ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & highs
        let bs = w ^ (ones &* 0x5C)
        let backslash = (bs &- ones) & ~bs & highs
        return control | quote | backslash != 0
    }
}
