import FederatedSearchCore

/// Turns the query text into a ``ParsedQuery`` with the index's analysis: quoted phrases and
/// `-exclusions` (with `advancedSyntax`), prefix flags by `queryType`, typo budgets by word
/// length, stop words and optional words.
struct QueryParser {
    let analyzer: TextAnalyzer
    let stopWords: Set<String>
    /// For grouping consecutive words that are a multi-word synonym input.
    var synonyms: SynonymTable = .empty
    let minWordSizefor1Typo: Int
    let minWordSizefor2Typos: Int
    /// The most words a query keeps; later words are ignored.
    static let maxWords = 32

    /// The text's runs between spaces, tabs and newlines, as characters (a "\r\n" pair, or a
    /// space with a combining mark, is one character and no separator). For ASCII text
    /// without a carriage return every character is one byte, and the bytes are split instead
    /// (splitting by character costs about as much as the rest of the parse).
    static func chunks(_ text: String) -> [Substring] {
        let utf8 = text.utf8
        guard utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) else {
            return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
        }
        return utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A }).map { Substring($0) }
    }

    func parse(_ text: String, parameters p: SearchParameters, typos: TypoTolerance) -> ParsedQuery {
        var words: [QueryWord] = []
        var excluded: [String] = []
        let advanced = p.advancedSyntax
        var segments: [(text: String, quoted: Bool)] = []
        if advanced, text.utf8.contains(UInt8(ascii: "\"")) {
            var quoted = false
            for (i, part) in text.split(separator: "\"", omittingEmptySubsequences: false).enumerated() {
                if i > 0 { quoted.toggle() }
                segments.append((String(part), quoted))
            }
            // An unmatched quote opens no phrase.
            if quoted, let last = segments.popLast() { segments.append((last.text, false)) }
        } else {
            segments = [(text, false)]
        }
        for segment in segments {
            if segment.quoted {
                let tokens = analyzer.queryTokens(segment.text)
                guard !tokens.isEmpty else { continue }
                words.append(
                    QueryWord(
                        terms: tokens.map(\.term), originals: tokens.map(\.original), isPrefix: false, maxTypos: 0,
                        isOptional: false, isQuoted: tokens.count == 1))
                continue
            }
            // Scanned whole when that is scanning its chunks one by one: the scanner ends words
            // at whitespace, and no chunk can be an exclusion (the common case, with no split).
            if analyzer.scanner.separatesAtWhitespace, !(advanced && segment.text.utf8.contains(UInt8(ascii: "-"))) {
                for t in analyzer.queryTokens(segment.text) {
                    words.append(QueryWord(terms: [t.term], originals: [t.original], isPrefix: false, maxTypos: 0, isOptional: false))
                }
                continue
            }
            for chunk in Self.chunks(segment.text) {
                if advanced && chunk.hasPrefix("-") && chunk.count > 1 {
                    excluded += analyzer.queryTokens(String(chunk.dropFirst())).map(\.term)
                    continue
                }
                for t in analyzer.queryTokens(String(chunk)) {
                    words.append(QueryWord(terms: [t.term], originals: [t.original], isPrefix: false, maxTypos: 0, isOptional: false))
                }
            }
        }
        if words.count > Self.maxWords { words.removeLast(words.count - Self.maxWords) }
        // Stop words go, unless nothing would be left. As in Algolia, a word read as a prefix
        // (the last one with `prefixLast`, every one with `prefixAll`) is never removed: `star
        // the` may be on its way to `star theory`.
        if !stopWords.isEmpty && p.queryType != .prefixAll {
            let last = words.count - 1
            let kept = words.enumerated().filter { i, w in
                w.isQuotation || (p.queryType == .prefixLast && i == last) || !stopWords.contains(w.term)
            }.map(\.element)
            if !kept.isEmpty { words = kept }
        }
        let optional = Set(p.optionalWords.flatMap { analyzer.queryTokens($0).map(\.term) })
        let allOptional = p.matchingStrategy == .any
        for i in words.indices {
            var w = words[i]
            if !w.isQuotation {
                switch p.queryType {
                case .prefixAll: w.isPrefix = true
                case .prefixLast: w.isPrefix = i == words.count - 1
                case .prefixNone: w.isPrefix = false
                }
                w.maxTypos = typoBudget(w.term, typos)
            }
            w.isOptional = allOptional || (!w.isQuotation && optional.contains(w.term))
            words[i] = w
        }
        return ParsedQuery(words: group(words), excluded: excluded)
    }

    /// Replaces each run of consecutive plain words that is the input of a multi-word
    /// synonym (longest first) by one unit holding those words.
    func group(_ words: [QueryWord]) -> [QueryWord] {
        guard synonyms.longestGroup > 1 else { return words }
        var out: [QueryWord] = []
        var i = 0
        scan: while i < words.count {
            for length in stride(from: min(synonyms.longestGroup, words.count - i), through: 2, by: -1) {
                let run = Array(words[i..<i + length])
                guard !run.contains(where: \.isQuotation) else { continue }
                if !synonyms.alternatives(ofGroup: run.map(\.term)).isEmpty {
                    out.append(
                        QueryWord(
                            terms: run.map(\.term), originals: run.flatMap(\.originals), isPrefix: false, maxTypos: 0,
                            isOptional: run.allSatisfy(\.isOptional), members: run))
                    i += length
                    continue scan
                }
            }
            out.append(words[i])
            i += 1
        }
        return out
    }

    /// Typos allowed for a word of this length (counted in characters).
    func typoBudget(_ term: String, _ typos: TypoTolerance) -> Int {
        if typos == .disabled { return 0 }
        let n = term.unicodeScalars.count
        if n >= minWordSizefor2Typos { return 2 }
        if n >= minWordSizefor1Typo { return 1 }
        return 0
    }
}
