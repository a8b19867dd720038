import CNcurses

/// Widths of text in terminal cells: a wide character (CJK, most emoji) takes two, a
/// combining mark none, as wcwidth(3) says under a UTF-8 character type (made so on first
/// use if the process's locale is not UTF-8). Characters it does not know take one.
public enum TextWidth {
    /// Whether the character type is UTF-8 (it is set on first use).
    private static let utf8: Bool = fs_ensure_utf8_ctype() != 0

    /// The cells `c` takes.
    public static func of(_ c: Character) -> Int {
        _ = utf8
        var width = 0
        for (i, scalar) in c.unicodeScalars.enumerated() {
            let w = Int(fs_wcwidth(wchar_t(bitPattern: scalar.value)))
            if i == 0 { width = w < 0 ? 1 : w } else if w > 0, width == 1, scalar.properties.isEmojiPresentation { width = 2 }
        }
        return width
    }

    /// The cells `s` takes.
    public static func of(_ s: String) -> Int {
        isPrintableASCII(s) ? s.utf8.count : s.reduce(0) { $0 + of($1) }
    }

    /// Whether `s` is printable ASCII only: a cell per byte, nothing to replace (most titles,
    /// counts and keys; the character-by-character path costs most of a frame's drawing).
    private static func isPrintableASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }

    /// `s` cut to at most `width` cells, ending with `…` when cut.
    public static func truncate(_ s: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(s) > width else { return s }
        if isPrintableASCII(s) { return String(s.utf8.prefix(width - 1))! + "…" }
        var out = ""
        var used = 0
        for c in s {
            let w = of(c)
            if used + w > width - 1 { break }
            out.append(c)
            used += w
        }
        return out + "…"
    }

    /// The longest start of `s` that takes at most `width` cells (no `…`).
    public static func prefix(_ s: String, to width: Int) -> String {
        if isPrintableASCII(s) { return s.utf8.count <= width ? s : String(s.utf8.prefix(max(0, width)))! }
        var out = ""
        var used = 0
        for c in s {
            let w = of(c)
            if used + w > width { break }
            out.append(c)
            used += w
        }
        return out
    }

    /// `s` with its control characters (newlines, tabs, escapes) made spaces: they would move
    /// the cursor or restyle the terminal instead of taking one cell.
    public static func printable(_ s: String) -> String {
        if isPrintableASCII(s) { return s }
        guard s.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return s }
        return String(String.UnicodeScalarView(s.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// `s` cut or padded with spaces to exactly `width` cells.
    public static func fit(_ s: String, to width: Int) -> String {
        let cut = truncate(s, to: width)
        return cut + String(repeating: " ", count: max(0, width - of(cut)))
    }
}
