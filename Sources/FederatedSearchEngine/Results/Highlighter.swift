import FederatedSearchCore

/// Builds `_highlightResult` and `_snippetResult` entries in Algolia's shape. Tags are only
/// ever inserted at scalar boundaries of the original text, never inside a UTF-8 sequence.
///
/// A class, built once per query: the word scans capture it in closures, and copying a
/// struct of this many references there cost a retain and a release of each, per value.
final class Highlighter {
    let analyzer: TextAnalyzer
    let matcher: HighlightMatcher
    let preTag: [UInt8]
    let postTag: [UInt8]
    let ellipsis: String
    /// The tags as they appear inside a JSON string (a tag may hold quotes).
    let escapedPreTag: [UInt8]
    let escapedPostTag: [UInt8]
    /// Reused by each highlighted leaf for its marks (one allocation per query, not per leaf).
    private var scratchMarks: [(start: Int, end: Int)] = []
    private var scratchFolded: [UInt8] = []

    init(analyzer: TextAnalyzer, matcher: HighlightMatcher, preTag: [UInt8], postTag: [UInt8], ellipsis: String) {
        self.analyzer = analyzer
        self.matcher = matcher
        self.preTag = preTag
        self.postTag = postTag
        self.ellipsis = ellipsis
        var pre: [UInt8] = []
        var post: [UInt8] = []
        preTag.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, into: &pre) }
        postTag.withUnsafeBufferPointer { JSONWriter.writeEscaped($0, into: &post) }
        escapedPreTag = pre
        escapedPostTag = post
    }

    /// One string value, highlighted.
    private struct Marked {
        var tokens: [TextToken]
        /// Per token: highlighted original end offset, or nil.
        var marks: [Int?]
        var units: Set<Int>
        var fully: Bool
    }

    private func mark(_ text: String) -> Marked {
        let tokens = analyzer.textTokens(text)
        var marks: [Int?] = []
        var units: Set<Int> = []
        var fully = !tokens.isEmpty
        for t in tokens {
            if let m = matcher.match(t.term) {
                units.insert(m.unit)
                let end = t.originalEnd(coveringFolded: m.length)
                marks.append(end)
                if end < t.end { fully = false }
            } else {
                marks.append(nil)
                fully = false
            }
        }
        return Marked(tokens: tokens, marks: marks, units: units, fully: fully)
    }

    private func render(_ bytes: [UInt8], _ m: Marked, from: Int, to: Int, tokenRange: Range<Int>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(to - from + 16)
        var cursor = from
        for i in tokenRange {
            guard let end = m.marks[i] else { continue }
            let t = m.tokens[i]
            out.append(contentsOf: bytes[cursor..<t.start])
            out.append(contentsOf: preTag)
            out.append(contentsOf: bytes[t.start..<end])
            out.append(contentsOf: postTag)
            cursor = end
        }
        if cursor < to { out.append(contentsOf: bytes[cursor..<to]) }
        return String(decoding: out, as: UTF8.self)
    }

    private func level(_ units: Set<Int>) -> String {
        if units.isEmpty { return "none" }
        return units.count >= matcher.originals.count ? "full" : "partial"
    }

    private func matchedWords(_ units: Set<Int>) -> JSONValue {
        .array(units.sorted().flatMap { matcher.originals[$0] }.map { .string($0) })
    }

    /// `_highlightResult` of a value: strings and numbers become highlight objects, arrays
    /// arrays of them, objects objects of them.
    func highlight(_ value: JSONValue) -> JSONValue? {
        Self.mapLeaves(value) { leaf in
            guard let text = AttributePath.text(of: leaf) else { return nil }
            let m = mark(text)
            let bytes = Array(text.utf8)
            var o = JSONObject(capacity: 4)
            o.appendUnchecked("value", .string(render(bytes, m, from: 0, to: bytes.count, tokenRange: m.tokens.indices)))
            let lv = level(m.units)
            o.appendUnchecked("matchLevel", .string(lv))
            if lv != "none" { o.appendUnchecked("fullyHighlighted", .bool(m.fully)) }
            o.appendUnchecked("matchedWords", matchedWords(m.units))
            return .object(o)
        }
    }

    /// `value` with `leaf` applied to each string or number in it: arrays stay arrays and
    /// objects objects (of the leaves that gave a result), as Algolia shapes highlights.
    static func mapLeaves(_ value: JSONValue, _ leaf: (JSONValue) -> JSONValue?) -> JSONValue? {
        switch value {
        case .array(let items): return .array(items.compactMap { mapLeaves($0, leaf) })
        case .object(let o):
            var out = JSONObject()
            for e in o.entries { if let h = mapLeaves(e.value, leaf) { out.appendUnchecked(e.key, h) } }
            return .object(out)
        default: return leaf(value)
        }
    }

    /// Writes the `_highlightResult` of a value of a searchable attribute whose document holds
    /// only the `candidates` among the terms the query can match there
    /// (``HighlightCandidates``) as compact JSON: the same text ``JSONWriter`` writes for
    /// ``highlight(_:)``'s result, built without a tree. A value with no candidate is not
    /// scanned, and only words equal to a candidate go through the matcher. Returns false
    /// (having written nothing) where ``highlight(_:)`` gives nil.
    ///
    /// `through`: for a value that is the attribute's one string (word `i` is at position `i`),
    /// the last position of a candidate and the attribute's word count: the scan stops after
    /// that word (every later word is unmarked, so the rest is copied as it is).
    func write(
        _ value: JSONValue, candidates: [ArraySlice<UInt8>], through: (last: Int, words: Int)? = nil,
        into out: inout [UInt8]
    ) -> Bool {
        switch value {
        case .array(let items):
            // `through` describes a lone string only.
            out.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                let mark = out.count
                if !first { out.append(UInt8(ascii: ",")) }
                if write(item, candidates: candidates, into: &out) { first = false } else { out.removeSubrange(mark...) }
            }
            out.append(UInt8(ascii: "]"))
            return true
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for e in o.entries {
                let mark = out.count
                if !first { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(e.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if write(e.value, candidates: candidates, into: &out) { first = false } else { out.removeSubrange(mark...) }
            }
            out.append(UInt8(ascii: "}"))
            return true
        default:
            guard var text = AttributePath.text(of: value) else { return false }
            text.withUTF8 { writeLeaf($0, candidates: candidates, through: through, into: &out) }
            return true
        }
    }

    /// The highlight object of one string's UTF-8 `bytes` (see ``write(_:candidates:through:into:)``).
    /// Pointer use: `bytes` is the string's storage borrowed for the call (`withUTF8`), read by
    /// index and by ranges of marks found inside it; nothing keeps it after the call.
    private func writeLeaf(
        _ bytes: UnsafeBufferPointer<UInt8>, candidates: [ArraySlice<UInt8>],
        through: (last: Int, words: Int)?, into out: inout [UInt8]
    ) {
        out.append(contentsOf: Pieces.valueOpen)
        if candidates.isEmpty {
            JSONWriter.writeEscaped(bytes, into: &out)
            out.append(contentsOf: Pieces.noMatchClose)
            return
        }
        // The marks of this leaf, in a buffer the highlighter keeps for the whole query.
        var marks: [(start: Int, end: Int)] = []
        swap(&marks, &scratchMarks)  // taken out, so it is uniquely referenced and reused in place
        marks.removeAll(keepingCapacity: true)
        defer { swap(&marks, &scratchMarks) }
        var folded: [UInt8] = []  // a word lowercased, in the highlighter's buffer likewise
        swap(&folded, &scratchFolded)
        defer { swap(&folded, &scratchFolded) }
        var units: UInt64 = 0
        var fully = true
        var any = false
        var lengths: UInt64 = 0  // bit l: a candidate has l bytes (l < 64)
        for c in candidates { lengths |= c.count < 64 ? 1 << UInt64(c.count) : 1 << 63 }
        var index = 0
        let stopAfter = through?.last ?? Int.max
        if let through, through.words > through.last + 1 { fully = false }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            // ASCII (most text): words are runs of word bytes and fold to their lowercase,
            // byte for byte, so a word is only looked at when its length is a candidate's.
            let isWord = analyzer.scanner.asciiWordBytes
            let n = bytes.count
            var i = 0
            while i < n {
                while i < n && !isWord[Int(bytes[i])] { i &+= 1 }
                if i >= n { break }
                let start = i
                while i < n && isWord[Int(bytes[i])] { i &+= 1 }
                let length = i &- start
                any = true
                var marked = false
                if lengths & (length < 64 ? 1 << UInt64(length) : 1 << 63) != 0,
                    candidates.contains(where: { c in
                        c.count == length && zip(c, bytes[start..<i]).allSatisfy { $0 == Self.lowercased($1) }
                    })
                {
                    folded.removeAll(keepingCapacity: true)
                    for b in bytes[start..<i] { folded.append(Self.lowercased(b)) }
                    if let m = matcher.match(folded) {
                        units |= 1 << UInt64(m.unit)
                        let end = m.length >= length ? i : start &+ m.length
                        marks.append((start, end))
                        if end < i { fully = false }
                        marked = true
                    }
                }
                if !marked { fully = false }
                let goOn = index < stopAfter
                index &+= 1
                if !goOn { break }
            }
        } else {
            let text = String(decoding: bytes, as: UTF8.self)
            analyzer.scanner.scan(text) { w in
                any = true
                defer { index += 1 }
                let n = w.folded.count
                guard lengths & (n < 64 ? 1 << UInt64(n) : 1 << 63) != 0,
                    candidates.contains(where: { $0.count == n && $0.elementsEqual(w.folded) }),
                    let m = matcher.match(w.folded)
                else {
                    fully = false
                    return index < stopAfter
                }
                units |= 1 << UInt64(m.unit)
                let end = m.length >= n ? w.end : analyzer.scanner.originalEnd(text, wordStart: w.start, coveringFolded: m.length)
                marks.append((w.start, end))
                if end < w.end { fully = false }
                return index < stopAfter
            }
        }
        var cursor = 0
        for (start, end) in marks {
            JSONWriter.writeEscaped(UnsafeBufferPointer(rebasing: bytes[cursor..<start]), into: &out)
            out.append(contentsOf: escapedPreTag)
            JSONWriter.writeEscaped(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &out)
            out.append(contentsOf: escapedPostTag)
            cursor = end
        }
        JSONWriter.writeEscaped(UnsafeBufferPointer(rebasing: bytes[cursor...]), into: &out)
        let count = units.nonzeroBitCount
        if count == 0 {
            out.append(contentsOf: Pieces.noMatchWords)
        } else {
            out.append(contentsOf: count >= matcher.originals.count ? Pieces.full : Pieces.partial)
            out.append(contentsOf: fully && any ? Pieces.trueWords : Pieces.falseWords)
        }
        var rest = units
        var first = true
        while rest != 0 {
            for w in matcher.originals[rest.trailingZeroBitCount] {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONWriter.writeString(w, into: &out)
            }
            rest &= rest &- 1
        }
        out.append(UInt8(ascii: "]"))
        out.append(UInt8(ascii: "}"))
    }

    /// The fixed parts of a highlight object's JSON, as bytes (appending an array is one copy;
    /// a string literal's UTF-8 view goes through the generic sequence path).
    private enum Pieces {
        static let valueOpen = Array(#"{"value":""#.utf8)
        static let noMatchClose = Array(#"","matchLevel":"none","matchedWords":[]}"#.utf8)
        static let noMatchWords = Array(#"","matchLevel":"none","matchedWords":["#.utf8)
        static let full = Array(#"","matchLevel":"full","fullyHighlighted":"#.utf8)
        static let partial = Array(#"","matchLevel":"partial","fullyHighlighted":"#.utf8)
        static let trueWords = Array(#"true,"matchedWords":["#.utf8)
        static let falseWords = Array(#"false,"matchedWords":["#.utf8)
    }

    @inline(__always) static func lowercased(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b &+ 32 : b }

    /// `_snippetResult` of a value: the window of `words` words with the most matches.
    func snippet(_ value: JSONValue, words: Int) -> JSONValue? {
        Self.mapLeaves(value) { leaf in
            guard let text = AttributePath.text(of: leaf) else { return nil }
            let m = mark(text)
            let bytes = Array(text.utf8)
            let n = m.tokens.count
            let size = max(1, words)
            var start = 0
            if n > size {
                var best = -1
                var inWindow = 0
                for i in 0..<n {
                    if m.marks[i] != nil { inWindow += 1 }
                    if i >= size && m.marks[i - size] != nil { inWindow -= 1 }
                    if i >= size - 1 && inWindow > best {
                        best = inWindow
                        start = i - size + 1
                    }
                }
                // Centre a lone match a little: show a few words of context before it, but never
                // move a match of the window out of it (the last one bounds the shift left).
                let window = start..<min(n, start + size)
                if best > 0, let firstMark = window.first(where: { m.marks[$0] != nil }),
                    let lastMark = window.last(where: { m.marks[$0] != nil })
                {
                    start = max(0, lastMark - size + 1, min(firstMark - 2, n - size))
                }
            }
            let end = min(n, start + size)
            var value = ""
            if n == 0 {
                value = text
            } else {
                let from = start == 0 ? 0 : m.tokens[start].start
                let to = end == n ? bytes.count : m.tokens[end - 1].end
                value = render(bytes, m, from: from, to: to, tokenRange: start..<end)
                if start > 0 { value = ellipsis + value }
                if end < n { value += ellipsis }
            }
            var o = JSONObject(capacity: 4)
            o.appendUnchecked("value", .string(value))
            o.appendUnchecked("matchLevel", .string(level(m.units)))
            return .object(o)
        }
    }
}
