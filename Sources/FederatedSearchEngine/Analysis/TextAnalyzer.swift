/// A word of a query after analysis.
struct QueryToken: Equatable {
    /// The folded form, as indexed.
    var term: String
    /// The word as the user typed it (for `matchedWords`).
    var original: String
    /// Whether it followed the previous word across a joiner with no space ("ddr2-sdram").
    var linkedToPrevious: Bool
}

/// A word of a stored value, with where it sits in the original text (for highlighting).
struct TextToken {
    var term: [UInt8]
    /// UTF-8 offsets of the word in the original text.
    var start: Int
    var end: Int
    /// For each original scalar: folded length and original offset reached after it.
    var scalarEnds: [(folded: Int, original: Int)]

    /// The original UTF-8 offset covering the first `foldedLength` folded bytes.
    func originalEnd(coveringFolded foldedLength: Int) -> Int {
        for e in scalarEnds where e.folded >= foldedLength { return e.original }
        return end
    }
}

/// The analysis shared by indexing and querying, so both see the same terms: words from
/// ``WordScanner``, folded by ``ScalarFolding``, positions counted per attribute, and the
/// concatenation of joined words ("ddr2-sdram" → "ddr2sdram") indexed at the first part's
/// position so that a product code is found by its parts and as a whole.
struct TextAnalyzer: Sendable {
    let scanner: WordScanner
    /// Longest chain of joined words whose concatenation is indexed.
    static let maxCompoundParts = 4

    init(separatorsToIndex: String = "") {
        scanner = WordScanner(separatorsToIndex: separatorsToIndex)
    }

    /// Calls `body(term, position)` for every indexed term of `text`, words numbered from
    /// `firstPosition`; returns the position after the last word.
    func forEachIndexTerm(in text: String, firstPosition: Int, _ body: (String, Int) -> Void) -> Int {
        var position = firstPosition
        var compound: [UInt8] = []
        var parts = 0
        var compoundPosition = 0
        func flushCompound() {
            if parts >= 2 { body(String(decoding: compound, as: UTF8.self), compoundPosition) }
            parts = 0
        }
        scanner.scan(text, trackOffsets: false) { w in
            if w.linkedToPrevious && parts > 0 && parts < Self.maxCompoundParts {
                compound.append(contentsOf: w.folded)
                parts += 1
            } else {
                flushCompound()
                compound.removeAll(keepingCapacity: true)
                compound.append(contentsOf: w.folded)
                parts = 1
                compoundPosition = position
            }
            body(String(decoding: w.folded, as: UTF8.self), position)
            position += 1
        }
        flushCompound()
        return position
    }

    /// The words of a query, folded.
    func queryTokens(_ text: String) -> [QueryToken] {
        var out: [QueryToken] = []
        let utf8 = Array(text.utf8)
        scanner.scan(text, trackOffsets: false) { w in
            out.append(
                QueryToken(
                    term: String(decoding: w.folded, as: UTF8.self),
                    original: String(decoding: utf8[w.start..<w.end], as: UTF8.self),
                    linkedToPrevious: w.linkedToPrevious))
        }
        return out
    }

    /// The words of a stored value with their original offsets, for highlighting and snippets.
    func textTokens(_ text: String) -> [TextToken] {
        var out: [TextToken] = []
        scanner.scan(text, trackOffsets: true) { w in
            out.append(TextToken(term: w.folded, start: w.start, end: w.end, scalarEnds: w.scalarEnds))
        }
        return out
    }

    /// The folded form of a whole string (one term per word, joined by spaces).
    func fold(_ text: String) -> String {
        var parts: [String] = []
        scanner.scan(text, trackOffsets: false) { parts.append(String(decoding: $0.folded, as: UTF8.self)) }
        return parts.joined(separator: " ")
    }
}
