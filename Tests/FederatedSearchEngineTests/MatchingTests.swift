import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Matching: which documents a query finds. All words are required; the last is a prefix
/// by default; typos by length; phrases, exclusions, optional words and OR mode.
@Suite struct MatchingTests {
    let fixture = """
        {"objectID": "1", "title": "Star Wars: A New Hope", "cast": ["Mark Hamill", "Harrison Ford"]}
        {"objectID": "2", "title": "Star Trek", "cast": ["William Shatner"]}
        {"objectID": "3", "title": "Wars of the Roses"}
        {"objectID": "4", "title": "Amélie", "cast": ["Audrey Tautou"]}
        {"objectID": "5", "title": "Star Wars Remake"}
        {"objectID": "6", "title": "iPhone 15 case, DDR2-SDRAM inside"}
        """

    func index(_ settings: String = #"{"searchableAttributes": ["title", "cast"]}"#) throws -> EmbeddedIndex {
        try makeIndex(settings, fixture)
    }

    @Test func allWordsMustMatch() throws {
        #expect(Set(ids(try search(index(), "star wars"))) == ["1", "5"])
        #expect(ids(try search(index(), "star roses")).isEmpty)
    }

    @Test func lastWordIsAPrefixByDefault() throws {
        #expect(Set(ids(try search(index(), "star wa"))) == ["1", "5"])
        #expect(Set(ids(try search(index(), "star w"))) == ["1", "2", "5"])  // w: William Shatner
        #expect(ids(try search(index(), "star w", #"{"queryType": "prefixNone"}"#)).isEmpty)
        #expect(Set(ids(try search(index(), "sta wa", #"{"queryType": "prefixAll"}"#))) == ["1", "5"])
        #expect(ids(try search(index(), "sta wars", #"{"queryType": "prefixLast"}"#)).isEmpty)
    }

    @Test func foldedTextMatchesBothWays() throws {
        #expect(ids(try search(index(), "amelie")) == ["4"])
        #expect(ids(try search(index(), "AMÉLIE")) == ["4"])
    }

    @Test func arraysAreSearchedPerElement() throws {
        #expect(ids(try search(index(), "harrison")) == ["1"])
        #expect(ids(try search(index(), "tautou")) == ["4"])
    }

    @Test func productCodesMatchByPartsAndWhole() throws {
        #expect(ids(try search(index(), "iphone 15")) == ["6"])
        #expect(ids(try search(index(), "ddr2")) == ["6"])
        #expect(ids(try search(index(), "sdram")) == ["6"])
        #expect(ids(try search(index(), "ddr2sdram")) == ["6"])
        #expect(ids(try search(index(), "DDR2-SDRAM")) == ["6"])
    }

    @Test func typosFollowWordLength() throws {
        // "wars" has 4 letters: one typo allowed; "sar" has 3: none.
        #expect(Set(ids(try search(index(), "wras", #"{"queryType": "prefixNone"}"#))) == ["1", "3", "5"])
        #expect(ids(try search(index(), "sar", #"{"queryType": "prefixNone"}"#)).isEmpty)
        // 8 letters and more: two typos.
        #expect(ids(try search(index(), "harisson")) == ["1"])
        #expect(ids(try search(index(), "wras", #"{"typoTolerance": false, "queryType": "prefixNone"}"#)).isEmpty)
        #expect(ids(try search(index(), "wras", #"{"minWordSizefor1Typo": 5, "queryType": "prefixNone"}"#)).isEmpty)
    }

    @Test func prefixAndTypoTogetherOnTheLastWord() throws {
        #expect(ids(try search(index(), "harri")) == ["1"])
        #expect(ids(try search(index(), "hrari")) == ["1"])  // transposition inside a prefix
    }

    @Test func quotedPhrasesNeedAdjacentWords() throws {
        #expect(Set(ids(try search(index(), "\"star wars\""))) == ["1", "5"])
        #expect(ids(try search(index(), "\"wars star\"")).isEmpty)
        #expect(Set(ids(try search(index(), "\"wars star\"", #"{"advancedSyntax": false}"#))) == ["1", "5"])
    }

    @Test func exclusionRemovesDocuments() throws {
        #expect(ids(try search(index(), "star wars -remake")) == ["1"])
        #expect(Set(ids(try search(index(), "star -trek"))) == ["1", "5"])
    }

    @Test func optionalWordsAndAnyMode() throws {
        #expect(Set(ids(try search(index(), "star roses", #"{"optionalWords": ["roses"]}"#))) == ["1", "2", "5"])
        #expect(Set(ids(try search(index(), "trek roses", #"{"matchingStrategy": "any"}"#))) == ["2", "3"])
    }

    @Test func removeWordsIfNoResults() throws {
        #expect(ids(try search(index(), "trek zzzz", #"{"removeWordsIfNoResults": "lastWords"}"#)) == ["2"])
        #expect(ids(try search(index(), "zzzz trek", #"{"removeWordsIfNoResults": "firstWords"}"#)) == ["2"])
        #expect(Set(ids(try search(index(), "roses trek", #"{"removeWordsIfNoResults": "allOptional"}"#))) == ["2", "3"])
        #expect(ids(try search(index(), "trek zzzz")).isEmpty)
    }

    @Test func emptyQueryReturnsEverything() throws {
        let r = try search(index(), "")
        #expect(r.nbHits == 6)
        #expect(ids(r) == ["1", "2", "3", "4", "5", "6"])
    }

    @Test func stemmingAndSynonyms() throws {
        let idx = try makeIndex(
            #"{"ignorePlurals": true, "synonyms": [["car", "automobile"], {"type": "oneWaySynonym", "input": "tv", "synonyms": ["television set"]}]}"#,
            """
            {"objectID": "1", "title": "red cars"}
            {"objectID": "2", "title": "an automobile"}
            {"objectID": "3", "title": "a television set"}
            {"objectID": "4", "title": "a tv"}
            """)
        #expect(Set(ids(try search(idx, "car", #"{"queryType": "prefixNone"}"#))) == ["1", "2"])
        #expect(Set(ids(try search(idx, "tv"))) == ["3", "4"])
        #expect(ids(try search(idx, "television")) == ["3"])
    }

    @Test func stopWordsAreDroppedFromQueries() throws {
        let idx = try makeIndex(
            #"{"removeStopWords": true}"#,
            """
            {"objectID": "1", "title": "lord rings"}
            """)
        #expect(ids(try search(idx, "the lord of the rings")) == ["1"])
        #expect(ids(try search(idx, "the")).isEmpty)
    }

    @Test func restrictSearchableAttributes() throws {
        #expect(ids(try search(index(), "ford")) == ["1"])
        #expect(ids(try search(index(), "ford", #"{"restrictSearchableAttributes": ["title"]}"#)).isEmpty)
    }

    /// A prefix's best term may be in an attribute the query leaves out while another of its
    /// terms is in one it keeps: the document matches through that one.
    @Test func restrictSearchableAttributesKeepsAPrefixTermInAnAllowedAttribute() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["title", "body"]}"#, #"{"objectID": "1", "title": "apple", "body": "application"}"#)
        #expect(ids(try search(idx, "app", #"{"restrictSearchableAttributes": ["body"]}"#)) == ["1"])
        #expect(ids(try search(idx, "aple", #"{"restrictSearchableAttributes": ["body"]}"#)).isEmpty)
        let r = try search(idx, "app", #"{"restrictSearchableAttributes": ["body"], "getRankingInfo": true}"#)
        #expect(r.hits.count == 1)
    }

    /// `advancedSyntax`: a word in quotes matches exactly, like a phrase (no prefix, no typos).
    @Test func aQuotedWordMatchesOnlyItself() throws {
        let idx = try makeIndex(
            "{}",
            """
            {"objectID": "1", "title": "star"}
            {"objectID": "2", "title": "start"}
            {"objectID": "3", "title": "stat"}
            """)
        #expect(Set(ids(try search(idx, "star"))) == ["1", "2", "3"])
        #expect(ids(try search(idx, "\"star\"")) == ["1"])
        #expect(ids(try search(idx, "\"stat\"")) == ["3"])
        #expect(ids(try search(idx, "\"star\"", #"{"advancedSyntax": false}"#)).count == 3)
    }

    /// As in Algolia, stop words are not removed from words read as prefixes: `star the` may be
    /// on its way to `star theory`.
    @Test func aStopWordReadAsAPrefixIsKept() throws {
        let idx = try makeIndex(
            #"{"removeStopWords": true}"#,
            """
            {"objectID": "1", "title": "star theory"}
            {"objectID": "2", "title": "star wars"}
            """)
        #expect(ids(try search(idx, "star the")) == ["1"])
        #expect(Set(ids(try search(idx, "the star"))) == ["1", "2"])
        #expect(Set(ids(try search(idx, "star the", #"{"queryType": "prefixNone"}"#))) == ["1", "2"])
        #expect(ids(try search(idx, "the star the", #"{"queryType": "prefixAll"}"#)) == ["1"])
    }

    @Test func cancelledTaskStops() async throws {
        let idx = try index()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await idx.search(SearchQuery(text: "star"))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// The engine checks the query's deadline at its checkpoints: a search whose deadline has
    /// passed stops with `timeout` instead of finishing (searchSync does not check it first).
    @Test func passedDeadlineStopsTheSearch() throws {
        let idx = try index()
        var late = SearchQuery(text: "star")
        late.deadline = ContinuousClock.now - .milliseconds(1)
        #expect(throws: SearchError.self) { _ = try idx.searchSync(late) }
        do {
            _ = try idx.searchSync(late)
        } catch let error as SearchError {
            #expect(error.code == .timeout)
        }
        var early = SearchQuery(text: "star")
        early.deadline = ContinuousClock.now + .seconds(60)
        #expect(try idx.searchSync(early).nbHits > 0)
    }

    /// Typos count characters, not bytes: one substituted or dropped Cyrillic letter (two
    /// bytes each) is one typo, and the highlight covers whole characters.
    @Test func typosCountCharactersNotBytes() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["title"]}"#,
            """
            {"objectID": "1", "title": "москва река"}
            {"objectID": "2", "title": "берлин"}
            """)
        #expect(ids(try search(idx, "мрсква", #"{"queryType": "prefixNone"}"#)) == ["1"])
        #expect(ids(try search(idx, "моска", #"{"queryType": "prefixNone"}"#)) == ["1"])
        #expect(ids(try search(idx, "мрск")) == ["1"])  // prefix with one typo
        #expect(ids(try search(idx, "мрсква", #"{"typoTolerance": false}"#)).isEmpty)
        let hit = try search(idx, "мрск").hits[0]
        #expect(hit.highlightResult?["title"]?.objectValue?["value"]?.stringValue == "<em>моск</em>ва река")
    }

    /// Multi-word synonym inputs: "big cat" also finds "tiger" (and one-way "new york" finds
    /// "nyc"), while still finding documents with both words anywhere; the words of the
    /// input keep their own prefix and typo rules.
    @Test func multiWordSynonymInputs() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["title"], "synonyms": [["big cat", "tiger"], {"type": "oneWaySynonym", "input": "new york", "synonyms": ["nyc"]}]}"#,
            """
            {"objectID": "1", "title": "a tiger at rest"}
            {"objectID": "2", "title": "big fluffy cat"}
            {"objectID": "3", "title": "big dog"}
            {"objectID": "4", "title": "nyc marathon"}
            {"objectID": "5", "title": "new york marathon"}
            """)
        #expect(Set(ids(try search(idx, "big cat"))) == ["1", "2"])
        #expect(ids(try search(idx, "tiger")) == ["1"])  // the reverse direction: "big cat" as a phrase
        #expect(Set(ids(try search(idx, "new york marathon"))) == ["4", "5"])
        #expect(Set(ids(try search(idx, "nyc"))) == ["4"])  // one-way
        let hit = try search(idx, "big cat").hits.first { $0.objectID == "1" }!
        #expect(hit.highlightResult?["title"]?.objectValue?["value"]?.stringValue == "a <em>tiger</em> at rest")
    }
}
