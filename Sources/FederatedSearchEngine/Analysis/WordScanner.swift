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
    /// The kind of each ASCII byte under these settings (`ScalarFolding.kind`, answered once).
    private let asciiKinds: [ScalarKind]
    /// Per ASCII byte: whether it is part of a word (the rest end words: separators and joiners).
    let asciiWordBytes: [Bool]
    /// Whether a space, a tab and a newline each end a word and link none (unless
    /// `separatorsToIndex` keeps one): scanning a text is then scanning its runs between them.
    let separatesAtWhitespace: Bool

    init(separatorsToIndex: String = "") {
        let extra = Set(separatorsToIndex.unicodeScalars)
        extraWordScalars = extra
        let kinds = (0..<128).map { ScalarFolding.kind(Unicode.Scalar(UInt8($0)), extraWordScalars: extra) }
        asciiKinds = kinds
        asciiWordBytes = kinds.map { $0 == .word }
        separatesAtWhitespace = [0x20, 0x09, 0x0A].allSatisfy { kinds[$0] == .separator }
    }

    /// Calls `body` for every word of `text`, in order. The word passed is reused between calls.
    ///
    /// Reads the UTF-8 bytes directly: ASCII (most text) is classified and folded from
    /// tables, other scalars are decoded and go through ``ScalarFolding``.
    func scan(_ text: String, trackOffsets: Bool, _ body: (ScannedWord) -> Void) {
        var text = text
        text.withUTF8 {
            scan($0, trackOffsets: trackOffsets) {
                body($0)
                return true
            }
        }
    }

    /// Like ``scan(_:trackOffsets:_:)`` without offsets, but stops after the first word for
    /// which `body` returns false.
    func scan(_ text: String, while body: (ScannedWord) -> Bool) {
        var text = text
        text.withUTF8 { scan($0, trackOffsets: false, body) }
    }

    /// The UTF-8 offset in `text` reached once the word starting at `wordStart` has
    /// produced `foldedLength` folded bytes (where a highlight of its first folded bytes ends;
    /// ``TextToken/originalEnd(coveringFolded:)`` without tracking every word's offsets).
    func originalEnd(_ text: String, wordStart: Int, coveringFolded foldedLength: Int) -> Int {
        var end = wordStart
        var folded: [UInt8] = []
        let rest = Substring(text.utf8[text.utf8.index(text.utf8.startIndex, offsetBy: wordStart)...])
        for s in rest.unicodeScalars {
            ScalarFolding.appendFolded(s, to: &folded)
            end += s.utf8.count
            if folded.count >= foldedLength { return end }
        }
        return end
    }

    /// Pointer use: `bytes` is the text's own storage, borrowed for the call (`withUTF8`), read
    /// by index below `bytes.count` only.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, trackOffsets: Bool, _ body: (ScannedWord) -> Bool) {
        var word = ScannedWord()
        word.folded.reserveCapacity(32)
        var inWord = false
        var joinerPending = false
        var offset = 0
        var n = bytes.count
        var stopped = false

        func close() {
            if inWord {
                word.end = offset
                if !word.folded.isEmpty && !stopped && !body(word) {
                    stopped = true
                    n = 0  // ends the loop
                }
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

        while offset < n {
            let b = bytes[offset]
            if b < 0x80 {
                switch asciiKinds[Int(b)] {
                case .word:
                    if !inWord { open(at: offset, linked: joinerPending) }
                    joinerPending = false
                    word.folded.append(b >= 0x41 && b <= 0x5A ? b &+ 32 : b)
                    offset &+= 1
                    if trackOffsets { word.scalarEnds.append((word.folded.count, offset)) }
                case .joiner:
                    let wasInWord = inWord
                    close()
                    joinerPending = wasInWord
                    offset &+= 1
                case .separator, .ideograph:
                    close()
                    joinerPending = false
                    offset &+= 1
                }
                continue
            }
            // A multi-byte scalar (the string is valid UTF-8).
            let width = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
            var v = UInt32(b) & (width == 2 ? 0x1F : width == 3 ? 0x0F : 0x07)
            for k in 1..<width { v = v << 6 | (UInt32(bytes[offset &+ k]) & 0x3F) }
            let s = Unicode.Scalar(v) ?? "\u{FFFD}"
            switch ScalarFolding.kind(s, extraWordScalars: extraWordScalars) {
            case .word:
                if !inWord { open(at: offset, linked: joinerPending) }
                joinerPending = false
                ScalarFolding.appendFolded(s, to: &word.folded)
                offset &+= width
                if trackOffsets { word.scalarEnds.append((word.folded.count, offset)) }
            case .ideograph:
                close()
                open(at: offset, linked: false)
                joinerPending = false
                word.isIdeograph = true
                ScalarFolding.appendFolded(s, to: &word.folded)
                offset &+= width
                if trackOffsets { word.scalarEnds.append((word.folded.count, offset)) }
                close()
            case .joiner:
                let wasInWord = inWord
                close()
                joinerPending = wasInWord
                offset &+= width
            case .separator:
                close()
                joinerPending = false
                offset &+= width
            }
        }
        close()
    }
}
