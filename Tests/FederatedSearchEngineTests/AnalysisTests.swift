import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Analysis: folding, word boundaries, compounds, CJK, stemming. The same analysis runs at
/// index and query time, so these properties are what makes "Amélie" find "amelie".
@Suite struct AnalysisTests {
    let analyzer = TextAnalyzer()

    func indexTerms(_ text: String) -> [(String, Int)] {
        var out: [(String, Int)] = []
        _ = analyzer.forEachIndexTerm(in: text, firstPosition: 0) { out.append(($0, $1)) }
        return out
    }

    @Test func foldsCaseDiacriticsAndWidth() {
        #expect(analyzer.fold("Amélie") == "amelie")
        #expect(analyzer.fold("ÉCOLE Straße") == "ecole strasse")
        #expect(analyzer.fold("ＡＢＣ ﬁne") == "abc fine")
        #expect(analyzer.fold("Œuvre Ærø") == "oeuvre aero")
    }

    @Test func keepsLettersAndDigitsTogether() {
        #expect(analyzer.queryTokens("iPhone 15, 9200M!").map(\.term) == ["iphone", "15", "9200m"])
    }

    @Test func indexesJoinedWordsByPartsAndWhole() {
        let terms = indexTerms("DDR2-SDRAM module")
        #expect(terms.map(\.0) == ["ddr2", "sdram", "ddr2sdram", "module"])
        #expect(terms.map(\.1) == [0, 1, 0, 2])
    }

    @Test func splitsCJKIntoCharacters() {
        #expect(analyzer.queryTokens("東京タワー").map(\.term) == ["東", "京", "タ", "ワ", "ー"])
        #expect(analyzer.queryTokens("東京 hotel").map(\.term) == ["東", "京", "hotel"])
    }

    @Test func separatorsToIndexAreKeptInWords() {
        let a = TextAnalyzer(separatorsToIndex: "+#")
        #expect(a.queryTokens("C++ and C#").map(\.term) == ["c++", "and", "c#"])
        #expect(analyzer.queryTokens("C++").map(\.term) == ["c"])
    }

    @Test func textTokensMapFoldedPrefixesBackToTheOriginal() {
        let tokens = analyzer.textTokens("Émile Zola")
        #expect(tokens.count == 2)
        #expect(tokens[0].start == 0 && tokens[0].end == 6)  // É is two bytes
        #expect(tokens[0].originalEnd(coveringFolded: 2) == 3)  // "em" covers "Ém"
    }

    @Test func porterStemmer() {
        let s = EnglishStemmer()
        #expect(s.stem("connections") == "connect")
        #expect(s.stem("connected") == "connect")
        #expect(s.stem("ponies") == "poni")
        #expect(s.stem("caresses") == "caress")
        #expect(s.stem("relational") == "relat")
        #expect(s.stem("hopping") == "hop")
        #expect(s.stem("generalization") == "gener")
        #expect(s.stem("été") == "été")
    }

    @Test func synonymsAreAnalyzed() {
        let table = SynonymTable(
            [Synonym(synonyms: ["TV", "Télévision"]), Synonym(input: "phone", synonyms: ["mobile phone"])],
            analyzer: analyzer)
        #expect(table.alternatives(of: "tv") == [["television"]])
        #expect(table.alternatives(of: "television") == [["tv"]])
        #expect(table.alternatives(of: "phone") == [["mobile", "phone"]])
        #expect(table.alternatives(of: "mobile").isEmpty)
    }

    /// Alternatives gather every group and one-way synonym a word is in, in order, without the
    /// word itself and without repeats, as the pairwise table did; a large group builds in
    /// time linear in its words (a 1,000-word group took seconds when every pair was listed).
    @Test func synonymGroupsBuildInLinearTime() {
        let table = SynonymTable(
            [
                Synonym(synonyms: ["a", "b", "c"]), Synonym(synonyms: ["b", "d", "a", "b"]), Synonym(input: "a", synonyms: ["e", "c"]),
                Synonym(synonyms: ["big apple", "nyc"]), Synonym(synonyms: ["solo"]),
            ], analyzer: analyzer)
        #expect(table.alternatives(of: "a") == [["b"], ["c"], ["d"], ["e"]])
        #expect(table.alternatives(of: "b") == [["a"], ["c"], ["d"]])
        #expect(table.alternatives(of: "e").isEmpty, "one-way")
        #expect(table.alternatives(ofGroup: ["big", "apple"]) == [["nyc"]])
        #expect(table.alternatives(of: "nyc") == [["big", "apple"]])
        #expect(table.alternatives(of: "solo").isEmpty)
        #expect(table.longestGroup == 2)
        let words = (0..<1_000).map { "w\($0)" }
        let clock = ContinuousClock()
        let started = clock.now
        let big = SynonymTable([Synonym(synonyms: words)], analyzer: analyzer)
        #expect(clock.now - started < .seconds(2))
        #expect(big.alternatives(of: "w7").count == 999)
    }
}

/// The query parser splits its text at spaces, tabs and newlines by character; its byte fast
/// path (ASCII without carriage returns) must give the same chunks as the character split.
@Suite struct QueryChunkTests {
    /// `count` texts of up to `maxPieces - 1` of `pieces` each, from a seeded generator.
    static func randomTexts(_ pieces: [String], count: Int, maxPieces: UInt64, seed: UInt64) -> [String] {
        var state = seed
        return (0..<count).map { _ in
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var r = state
            for _ in 0..<Int(r % maxPieces) {
                r = r &* 6_364_136_223_846_793_005 &+ 1
                text += pieces[Int((r >> 33) % UInt64(pieces.count))]
            }
            return text
        }
    }

    @Test func byteAndCharacterSplitsAgree() {
        let pieces: [String] = [" ", "\t", "\n", "\r", "\r\n", "a", "bc", "-", "\"", "é", "\u{301}", "東", "  "]
        for text in Self.randomTexts(pieces, count: 2000, maxPieces: 9, seed: 5) {
            let reference = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            #expect(QueryParser.chunks(text).map(String.init) == reference, "\(Array(text.unicodeScalars))")
        }
    }

    /// The parser scans a segment whole when its scanner ends words at whitespace: that must
    /// give the tokens (folded and as typed) of its chunks scanned one by one.
    @Test func scanningWholeIsScanningEachChunk() {
        let pieces: [String] = [" ", "\t", "\n", "\r", "\r\n", "a", "Bc", "-", ".", "'", "é", "\u{301}", "東", "x2", "  "]
        let analyzer = TextAnalyzer()
        #expect(analyzer.scanner.separatesAtWhitespace)
        #expect(!TextAnalyzer(separatorsToIndex: " ").scanner.separatesAtWhitespace)
        for text in Self.randomTexts(pieces, count: 2000, maxPieces: 10, seed: 11) {
            let whole = analyzer.queryTokens(text)
            let chunked = QueryParser.chunks(text).flatMap { analyzer.queryTokens(String($0)) }
            #expect(whole.map(\.term) == chunked.map(\.term), "\(Array(text.unicodeScalars))")
            #expect(whole.map(\.original) == chunked.map(\.original), "\(Array(text.unicodeScalars))")
        }
    }
}
