import Testing
import FederatedSearchCore
@testable import FederatedSearchEngine

/// The typo walk (trie levels, banded table, multi-byte characters) against the textbook
/// distance over every term of random dictionaries.
@Suite struct TypoSearchTests {
    /// Letters from a small alphabet (so many terms are near each other), some multi-byte.
    static let alphabet: [Character] = ["a", "b", "c", "d", "e", "é", "ж"]

    struct Generator {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        mutating func word(_ lengths: ClosedRange<Int>) -> String {
            String(
                (0..<(lengths.lowerBound + next(lengths.count))).map { _ in TypoSearchTests.alphabet[next(TypoSearchTests.alphabet.count)] }
            )
        }
    }

    /// Every term within `budget` of `query` (by the textbook distance; in prefix mode, of
    /// its closest prefix) has its distance as its best typo count in `spans`, and no term
    /// beyond the budget is in them (exact matches, distance 0, are the caller's).
    static func expectReference(_ spans: [TermSpan], terms: [String], query: String, budget: Int, prefix: Bool) {
        var best: [Int: Int] = [:]
        for s in spans { for id in s.lo..<s.hi { best[id] = min(best[id] ?? .max, MatchFlags.typos(s.flags)) } }
        let q = Array(query)
        for (id, term) in terms.enumerated() {
            let t = Array(term)
            let d =
                prefix
                ? (0...t.count).map { ReferenceModel.distance(q, Array(t[0..<$0])) }.min()!
                : ReferenceModel.distance(q, t)
            if d >= 1 && d <= budget {
                #expect(best[id] == d, "query \(query) term \(term) prefix \(prefix) budget \(budget)")
            } else if d > budget {
                #expect(best[id] == nil, "query \(query) term \(term) prefix \(prefix) budget \(budget)")
            }
        }
    }

    @Test(arguments: 0..<12)
    func matchesEveryTermWithinTheBudget(seed: Int) {
        var g = Generator(state: UInt64(seed) &+ 99)
        let terms = Array(Set((0..<400).map { _ in g.word(1...9) })).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let dictionary = TermDictionary(sortedTerms: terms)
        for _ in 0..<15 {
            let query = g.word(2...9)
            for maxTypos in 1...2 {
                for prefix in [false, true] {
                    var search = TypoSearch(dictionary: dictionary, query: Array(query.utf8), maxTypos: maxTypos, prefix: prefix)
                    search.run()
                    Self.expectReference(search.spans, terms: terms, query: query, budget: maxTypos, prefix: prefix)
                }
            }
        }
    }
}

/// The walk skips trie nodes whose terms lack characters a match below them needs
/// (``CharacterNeeds``). Over a small alphabet every node holds every letter and nothing is
/// skipped; here the alphabet is wide, so nodes are skipped, and each query is a term with up
/// to three random edits (substitutions, insertions, deletions, transpositions), so the terms
/// near it are there to be missed.
@Suite struct TypoSearchPruningTests {
    static let alphabet: [Character] = Array("abcdefghijklmnopqrstuvwxyz0123456789") + ["é", "ж", "-"]

    static func word(_ g: inout TypoSearchTests.Generator, _ lengths: ClosedRange<Int>) -> [Character] {
        (0..<(lengths.lowerBound + g.next(lengths.count))).map { _ in alphabet[g.next(alphabet.count)] }
    }

    static func mutated(_ term: [Character], _ g: inout TypoSearchTests.Generator) -> [Character] {
        var w = term
        for _ in 0..<g.next(4) {
            let i = g.next(max(w.count, 1))
            switch g.next(4) {
            case 0 where !w.isEmpty: w[i] = alphabet[g.next(alphabet.count)]
            case 1: w.insert(alphabet[g.next(alphabet.count)], at: min(i, w.count))
            case 2 where w.count > 1: w.remove(at: i)
            default: if i + 1 < w.count { w.swapAt(i, i + 1) }
            }
        }
        return w
    }

    @Test(arguments: 0..<6)
    func nearMissesMatchTheReference(seed: Int) {
        var g = TypoSearchTests.Generator(state: UInt64(seed) &+ 1234)
        var words = Set<String>()
        for _ in 0..<500 {
            let w = Self.word(&g, 2...7)
            words.insert(String(w))
            // Families of terms sharing a stem, as a real dictionary has.
            for _ in 0..<g.next(3) { words.insert(String(w + Self.word(&g, 1...4))) }
        }
        let terms = words.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let dictionary = TermDictionary(sortedTerms: terms)
        for _ in 0..<60 {
            let query = String(Self.mutated(Array(terms[g.next(terms.count)]), &g))
            guard query.count >= 2 else { continue }
            for prefix in [false, true] {
                var search = TypoSearch(dictionary: dictionary, query: Array(query.utf8), maxTypos: 2, prefix: prefix)
                search.run()
                TypoSearchTests.expectReference(search.spans, terms: terms, query: query, budget: 2, prefix: prefix)
            }
        }
    }
}

/// Words the automaton cannot take (more than 255 distinct characters) are still searched,
/// by the edit enumeration, without crashing.
@Suite struct TypoSearchLimitTests {
    @Test func wordsOfManyDistinctCharactersAreSearched() {
        let scalars = (0..<300).map { UInt32(0x4E00 + $0) }  // 300 distinct CJK ideographs
        let word = String(String.UnicodeScalarView(scalars.compactMap(Unicode.Scalar.init)))
        var typo = Array(word)
        typo[150] = "x"  // one substitution
        let terms = [String(typo), "abc"].sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(!TypoAutomaton.serves(scalars, maxTypos: 2))
        var search = TypoSearch(dictionary: TermDictionary(sortedTerms: terms), query: Array(word.utf8), maxTypos: 2, prefix: false)
        search.run()
        TypoSearchTests.expectReference(search.spans, terms: terms, query: word, budget: 2, prefix: false)
        #expect(search.spans.contains { MatchFlags.typos($0.flags) == 1 })
    }

    /// The same through a whole search: a word of 300 distinct Canadian syllabics (letters,
    /// kept as one word by the analyser) with one typo finds its document.
    @Test func searchOfAWordOfManyDistinctLettersFindsItsTypo() throws {
        let letters = (0..<300).compactMap { Unicode.Scalar(UInt32(0x1401 + $0)) }
        let word = String(String.UnicodeScalarView(letters))
        var typo = Array(word)
        typo[10] = typo[20]
        let index = try makeIndex(#"{"searchableAttributes": ["title"]}"#, #"{"objectID": "1", "title": "\#(word)"}"#)
        #expect(try search(index, String(typo)).nbHits == 1)
    }
}

/// The edit enumeration with a budget of two (the table walk serves that budget in the
/// engine), held to the same reference, so both stay interchangeable.
@Suite struct EditSearchTests {
    @Test(arguments: 0..<6)
    func twoEditsMatchTheReference(seed: Int) {
        var g = TypoSearchTests.Generator(state: UInt64(seed) &+ 7)
        let terms = Array(Set((0..<300).map { _ in g.word(1...8) })).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let dictionary = TermDictionary(sortedTerms: terms)
        for _ in 0..<10 {
            let query = g.word(2...8)
            for prefix in [false, true] {
                var search = EditSearch(
                    dictionary: dictionary, scalars: query.unicodeScalars.map(\.value), maxEdits: 2, prefix: prefix)
                search.run()
                TypoSearchTests.expectReference(search.spans, terms: terms, query: query, budget: 2, prefix: prefix)
            }
        }
    }
}
