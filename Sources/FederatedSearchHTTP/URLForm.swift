/// Percent-decoding of URL paths and `application/x-www-form-urlencoded` text (Algolia's
/// `params` strings and query strings).
package enum URLForm {
    /// The pairs of `key=value&...`, decoded (`+` is a space). A key without `=` has an empty value.
    package static func pairs(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0], plusIsSpace: true), parts.count > 1 ? decode(parts[1], plusIsSpace: true) : "")
        }
    }

    /// Percent-decodes `text`; an invalid escape is kept as written, invalid UTF-8 is repaired.
    package static func decode<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, let hi = hex(bytes[i + 1]), let lo = hex(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
                continue
            }
            out.append(plusIsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The path's segments after the leading `/`, each percent-decoded.
    package static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { decode($0) }
    }
}
