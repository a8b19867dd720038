/// One word found in a text by ``WordScanner``, before positions are assigned.
struct ScannedWord {
    /// The folded UTF-8 bytes of the word.
    var folded: [UInt8] = []
    /// UTF-8 offset of the word's first byte in the original text.
    var start = 0
    /// UTF-8 offset just past the word's last byte in the original text.
    var end = 0
    /// Whether a joiner ("-", ".", "'", ...) and no space separates it from the previous word.
    var linkedToPrevious = false
    /// Whether the word is a single CJK ideograph or kana.
    var isIdeograph = false
    /// With offset tracking: for each original scalar, the folded length and the original
    /// UTF-8 offset reached after it (maps a folded prefix back to the original text).
    var scalarEnds: [(folded: Int, original: Int)] = []
}

/// Splits text into words: runs of letters and digits kept together as typed ("9200m",
/// "ddr2"), each CJK ideograph alone, and words joined by "-", "." or "'" flagged as linked
/// so that the analyzer can also index their concatenation.
struct WordScanner: Sendable {
    /// Scalars that are separators by default but kept inside words (`separatorsToIndex`).
    let extraWordScalars: Set<Unicode.Scalar>

    init(separatorsToIndex: String = "") {
        extraWordScalars = Set(separatorsToIndex.unicodeScalars)
    }

    /// Calls `body` for every word of `text`, in order. The word passed is reused between calls.
    func scan(_ text: String, trackOffsets: Bool, _ body: (ScannedWord) -> Void) {
        var word = ScannedWord()
        word.folded.reserveCapacity(32)
        var inWord = false
        var joinerPending = false
        var offset = 0

        func close() {
            if inWord {
                word.end = offset
                if !word.folded.isEmpty { body(word) }
                inWord = false
            }
        }
        func open(at start: Int, linked: Bool) {
            word.folded.removeAll(keepingCapacity: true)
            word.scalarEnds.removeAll(keepingCapacity: true)
            word.start = start
            word.linkedToPrevious = linked
            word.isIdeograph = false
            inWord = true
        }

        for s in text.unicodeScalars {
            let width = s.utf8.count
            switch ScalarFolding.kind(s, extraWordScalars: extraWordScalars) {
            case .word:
                if !inWord { open(at: offset, linked: joinerPending) }
                joinerPending = false
                ScalarFolding.appendFolded(s, to: &word.folded)
                offset += width
                if trackOffsets { word.scalarEnds.append((word.folded.count, offset)) }
            case .ideograph:
                close()
                open(at: offset, linked: false)
                joinerPending = false
                word.isIdeograph = true
                ScalarFolding.appendFolded(s, to: &word.folded)
                offset += width
                if trackOffsets { word.scalarEnds.append((word.folded.count, offset)) }
                close()
            case .joiner:
                let wasInWord = inWord
                close()
                joinerPending = wasInWord
                offset += width
            case .separator:
                close()
                joinerPending = false
                offset += width
            }
        }
        close()
    }
}
