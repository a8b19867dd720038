/// Decides which words of a stored value match the query, and how much of each to
/// highlight: a whole word for an exact, typo, inflection or synonym match; only the typed
/// part for a prefix match.
struct HighlightMatcher {
    struct Spec {
        var term: [UInt8]
        var prefix: Bool
        var maxTypos: Int
        var stem: String?
        /// Index of the query unit (word or phrase) it belongs to.
        var unit: Int
    }

    let specs: [Spec]
    let alternatives: [[UInt8]: Int]
    let stemmer: EnglishStemmer?
    /// The query units' words as typed, for `matchedWords`.
    let originals: [[String]]

    init(words: [QueryWord], index: IndexSnapshot, typos: Bool) {
        var specs: [Spec] = []
        var alternatives: [[UInt8]: Int] = [:]
        for (u, w) in words.enumerated() {
            for part in w.isGroup ? w.members : [w] {
                for t in part.terms {
                    specs.append(
                        Spec(
                            term: Array(t.utf8), prefix: part.isPrefix, maxTypos: typos ? part.maxTypos : 0,
                            stem: index.stemmer?.stem(t), unit: u))
                }
            }
            let synonyms =
                w.isGroup
                ? index.synonyms.alternatives(ofGroup: w.terms)
                : w.isQuotation ? [] : index.synonyms.alternatives(of: w.term)
            for alt in synonyms {
                for t in alt { alternatives[Array(t.utf8)] = u }
            }
        }
        self.specs = specs
        self.alternatives = alternatives
        stemmer = index.stemmer
        originals = words.map(\.originals)
    }

    var isEmpty: Bool { specs.isEmpty }

    /// The query unit a token matches and the folded length to highlight, if it matches.
    func match(_ token: [UInt8]) -> (unit: Int, length: Int)? {
        for s in specs where s.term == token { return (s.unit, token.count) }
        for s in specs where s.prefix && token.count > s.term.count && token.starts(with: s.term) {
            return (s.unit, s.term.count)
        }
        if let u = alternatives[token] { return (u, token.count) }
        if let stemmer {
            let stem = stemmer.stem(String(decoding: token, as: UTF8.self))
            for s in specs where s.stem == stem { return (s.unit, token.count) }
        }
        let typoSpecs = specs.filter { $0.maxTypos > 0 }
        guard !typoSpecs.isEmpty else { return nil }
        let tokenScalars = EditDistance.scalars(token)
        for s in typoSpecs {
            let term = EditDistance.scalars(s.term)
            if EditDistance.distance(term, tokenScalars, prefix: false) <= s.maxTypos { return (s.unit, token.count) }
            if s.prefix && EditDistance.distance(term, tokenScalars, prefix: true) <= s.maxTypos {
                // As many characters of the token as the query word has, in bytes.
                let kept = tokenScalars.prefix(term.count).reduce(0) { $0 + Self.utf8Length($1) }
                return (s.unit, min(token.count, kept))
            }
        }
        return nil
    }

    /// The UTF-8 length of a scalar.
    static func utf8Length(_ scalar: UInt32) -> Int {
        scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
    }
}
