import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// The precomputed documents of short prefixes: each list is exactly the union of its terms'
/// postings, and a query word uses one only when its spans are exactly one listed prefix.
@Suite struct PrefixDocumentsTests {
    /// `count` titles of five random words of 1 to 6 letters of `alphabet`, as word lists.
    static func randomTitles(_ count: Int, _ alphabet: String, seed: UInt64) -> [[String]] {
        var g = ReferencePropertyTests.Generator(state: seed)
        return (0..<count).map { _ in
            (0..<5).map { _ in String((0..<Int.random(in: 1...6, using: &g)).map { _ in alphabet.randomElement(using: &g)! }) }
        }
    }

    /// An index of one document per title (objectIDs `prefix` + its number).
    static func index(_ titles: [[String]], idPrefix: String = "", more: [[String]] = []) throws -> EmbeddedIndex {
        let lines = (titles + more).enumerated().map { i, words in
            #"{"objectID": "\#(i < titles.count ? idPrefix : "more")\#(i)", "title": "\#(words.joined(separator: " "))"}"#
        }
        return try makeIndex(#"{"searchableAttributes": ["title"]}"#, lines.joined(separator: "\n"))
    }

    /// 2,000 documents of words over four letters, so that short prefixes stand for many
    /// terms with many postings.
    static func corpusIndex() throws -> EmbeddedIndex { try index(randomTitles(2000, "abcd", seed: 77)) }

    /// 12,000 documents of words over eight letters (their short prefixes are in many
    /// documents: bitmaps), and 300 that each hold ten words starting with "zq" (a prefix of
    /// many postings in few documents: a list).
    static func mixedIndex() throws -> EmbeddedIndex {
        let letters = Array("abcdefgh")
        let zq = (0..<300).map { i in
            (0..<10).map { k in "zq" + String(repeating: letters[(i + k) % 8], count: k % 3 + 1) + "\(k)" }
        }
        return try index(randomTitles(12_000, "abcdefgh", seed: 5), more: zq)
    }

    /// Every prefix of the first levels: kept with exactly its terms' documents, or not kept
    /// because it has few postings. Returns how many were kept.
    static func checkEveryPrefix(_ text: TextIndex) -> Int {
        let dictionary = text.dictionary
        let postings = text.postings
        var checked = 0
        for length in 1...PrefixTrie.depth {
            var prefixes = Set<[UInt8]>()
            for id in 0..<dictionary.count where dictionary.term(id).count >= length {
                prefixes.insert(Array(dictionary.term(id).prefix(length)))
            }
            for prefix in prefixes {
                let range = dictionary.prefixRange(prefix)
                var expected = Set<UInt32>()
                for t in range { for p in postings.postings(t) { expected.insert(postings.docs[p]) } }
                let total = Int(postings.termStart[range.upperBound] - postings.termStart[range.lowerBound])
                guard let listed = text.prefixDocuments.documents(lo: range.lowerBound, hi: range.upperBound) else {
                    #expect(total < PrefixDocuments.minimumPostings, "prefix \(String(decoding: prefix, as: UTF8.self))")
                    continue
                }
                #expect(Array(listed) == expected.sorted(), "prefix \(String(decoding: prefix, as: UTF8.self))")
                checked += 1
            }
        }
        return checked
    }

    @Test func everyKeptPrefixHoldsExactlyItsTermsDocuments() throws {
        // The corpus is large enough for prefixes to be kept (else this test checks nothing).
        #expect(Self.checkEveryPrefix(try Self.corpusIndex().snapshot.text) > 5)
    }

    @Test func bitmapsAndListsBothHoldExactlyTheirDocuments() throws {
        let text = try Self.mixedIndex().snapshot.text
        let kinds = text.prefixDocuments.kinds
        #expect(kinds.lists > 0 && kinds.bitmaps > 0, "both kinds are kept: \(kinds)")
        // Every entry was checked (prefixes with the same terms, "z" and "zq", share one).
        #expect(Self.checkEveryPrefix(text) >= kinds.lists + kinds.bitmaps)
        #expect(try search(Self.mixedIndex(), "zq").nbHits == 300)
    }

    @Test func onlyContiguousSpansOfAListedPrefixUseIt() throws {
        let text = try Self.corpusIndex().snapshot.text
        let range = text.dictionary.prefixRange(Array("ab".utf8))
        // "ab" is a term, and more than one letter follows it in others.
        try #require(text.dictionary.id(of: Array("ab".utf8)) == range.lowerBound && range.count >= 6)
        let lo = range.lowerBound
        let hi = range.upperBound
        let exact = MatchFlags.make(typos: 0, exact: true)
        let prefix = MatchFlags.make(typos: 0, exact: false)
        let whole = try #require(text.prefixDocuments.documents(lo: lo, hi: hi))
        // The word's exact term then the rest of its range: the same documents.
        #expect(
            text.prefixDocuments.documents(of: [
                TermSpan(lo: lo, hi: lo + 1, flags: exact), TermSpan(lo: lo + 1, hi: hi, flags: prefix),
            ]) == whole)
        // A hole, a part of the range, or a term beyond it (a typo variant): gathered instead.
        #expect(
            text.prefixDocuments.documents(of: [
                TermSpan(lo: lo, hi: lo + 1, flags: exact), TermSpan(lo: lo + 2, hi: hi, flags: prefix),
            ]) == nil)
        #expect(text.prefixDocuments.documents(of: [TermSpan(lo: lo + 1, hi: hi, flags: prefix)]) == nil)
        #expect(
            text.prefixDocuments.documents(of: [
                TermSpan(lo: lo, hi: hi, flags: prefix), TermSpan(lo: hi, hi: hi + 1, flags: MatchFlags.make(typos: 1, exact: false)),
            ]) == nil)
        #expect(text.prefixDocuments.documents(of: [TermSpan]()) == nil)
        #expect(text.prefixDocuments.documents(of: [PostingSpan]()) == nil)
    }

    /// Queries whose last word is a listed prefix, alone and intersected with other words,
    /// find what a scan of the documents finds.
    @Test func queriesOnListedPrefixesFindEveryDocument() throws {
        let titles = Self.randomTitles(2000, "abcd", seed: 77)
        let index = try Self.index(titles)
        for (query, words) in [("c", ["c"]), ("ab", ["ab"]), ("dab", ["dab"]), ("abcd d", ["abcd", "d"]), ("bb ca", ["bb", "ca"])] {
            let expected = titles.filter { title in
                words.enumerated().allSatisfy { i, w in
                    title.contains { i == words.count - 1 ? $0.hasPrefix(w) : $0 == w }
                }
            }.count
            let r = try search(index, query, #"{"typoTolerance": false, "hitsPerPage": 3}"#)
            #expect(r.nbHits == expected, "query '\(query)'")
            #expect(expected > 0, "query '\(query)' checks nothing")
        }
    }
}
