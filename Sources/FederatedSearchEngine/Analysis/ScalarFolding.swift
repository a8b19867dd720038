import Foundation

/// How the analyzer treats one Unicode scalar of a text.
enum ScalarKind: Equatable {
    /// Ends the current word.
    case separator
    /// Part of a word (letters, digits, combining marks, separators the index keeps).
    case word
    /// A CJK ideograph or kana: a word on its own.
    case ideograph
    /// Joins two words written without a space ("DDR2-SDRAM", "e-mail", "don't").
    case joiner
}

/// Classifies and folds Unicode scalars: compatibility decomposition (NFKD), lowercase, and
/// combining diacritics removed, so "Amélie", "AMELIE" and "ａｍｅｌｉｅ" all fold to "amelie".
///
/// Folding works scalar by scalar, so an analyzer can map every folded byte back to the
/// original scalar it came from (highlighting needs that). ASCII and Latin-1/Latin Extended-A
/// are answered from tables; other scalars go through Foundation once per occurrence.
enum ScalarFolding {
    /// Kind of each ASCII scalar.
    private static let asciiKinds: [ScalarKind] = (0..<128).map { v -> ScalarKind in
        let b = UInt8(v)
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .word
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: "'"):
            return .joiner
        default:
            return .separator
        }
    }

    /// Folded UTF-8 of U+0080...U+017F, computed once.
    private static let latinTable: [[UInt8]] = (0x80...0x17F).map { v in
        slowFold(Unicode.Scalar(UInt32(v))!)
    }

    /// The kind of `s`; `extraWordScalars` are separators the index keeps as word characters.
    static func kind(_ s: Unicode.Scalar, extraWordScalars: Set<Unicode.Scalar>) -> ScalarKind {
        if s.isASCII {
            let k = asciiKinds[Int(s.value)]
            if k != .word, !extraWordScalars.isEmpty, extraWordScalars.contains(s) { return .word }
            return k
        }
        if !extraWordScalars.isEmpty, extraWordScalars.contains(s) { return .word }
        let v = s.value
        if isIdeograph(v) { return .ideograph }
        if v == 0x2019 || v == 0x2010 || v == 0x2011 { return .joiner }  // ’ and Unicode hyphens
        let p = s.properties
        if p.isAlphabetic { return .word }
        switch p.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return .word
        default:
            return .separator
        }
    }

    /// Whether `v` is a Han ideograph, hiragana or katakana (written without spaces).
    static func isIdeograph(_ v: UInt32) -> Bool {
        (0x3040...0x30FF).contains(v) || (0x31F0...0x31FF).contains(v) || (0x3400...0x4DBF).contains(v)
            || (0x4E00...0x9FFF).contains(v) || (0xF900...0xFAFF).contains(v) || (0x20000...0x2FA1F).contains(v)
    }

    /// Appends the folded UTF-8 form of `s` to `out`.
    @inline(__always)
    static func appendFolded(_ s: Unicode.Scalar, to out: inout [UInt8]) {
        let v = s.value
        if v < 0x80 {
            var b = UInt8(truncatingIfNeeded: v)
            if b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") { b += 32 }
            out.append(b)
        } else if v <= 0x17F {
            out.append(contentsOf: latinTable[Int(v) - 0x80])
        } else {
            out.append(contentsOf: slowFold(s))
        }
    }

    /// Folds one scalar through Foundation's NFKD and the Unicode lowercase mapping.
    private static func slowFold(_ s: Unicode.Scalar) -> [UInt8] {
        switch s.value {
        case 0xDF: return Array("ss".utf8)
        case 0xC6, 0xE6: return Array("ae".utf8)
        case 0x152, 0x153: return Array("oe".utf8)
        case 0xD8, 0xF8: return Array("o".utf8)
        case 0x141, 0x142: return Array("l".utf8)
        case 0x110, 0x111, 0xD0, 0xF0: return Array("d".utf8)
        case 0xDE, 0xFE: return Array("th".utf8)
        case 0x131: return Array("i".utf8)
        case 0xAC00...0xD7A3: return Array(String(s).utf8)  // Hangul syllables stay composed
        default: break
        }
        var out: [UInt8] = []
        for d in String(s).decomposedStringWithCompatibilityMapping.unicodeScalars {
            if isDiacritic(d.value) { continue }
            out.append(contentsOf: d.properties.lowercaseMapping.utf8)
        }
        return out
    }

    /// Combining diacritical marks that folding drops (marks of other scripts are kept).
    private static func isDiacritic(_ v: UInt32) -> Bool {
        (0x300...0x36F).contains(v) || (0x1AB0...0x1AFF).contains(v) || (0x1DC0...0x1DFF).contains(v)
            || (0x20D0...0x20FF).contains(v) || (0xFE20...0xFE2F).contains(v)
    }
}
