import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Highlighting and snippets: Algolia's shape, prefix and typo matches highlighted on the
/// matched part, non-ASCII text never split, custom tags.
@Suite struct HighlightTests {
    func highlight(_ r: SearchResults, _ attribute: String, hit: Int = 0) -> JSONObject {
        r.hits[hit].highlightResult![attribute]!.objectValue!
    }

    @Test func fullMatchShape() throws {
        let idx = try makeIndex(#"{"searchableAttributes": ["title"]}"#, #"{"objectID": "1", "title": "Star Wars"}"#)
        let h = highlight(try search(idx, "star wars"), "title")
        #expect(h["value"] == "<em>Star</em> <em>Wars</em>")
        #expect(h["matchLevel"] == "full")
        #expect(h["fullyHighlighted"] == true)
        #expect(h["matchedWords"] == ["star", "wars"])
    }

    /// An attribute listed twice in `attributesToHighlight` is highlighted once: the encoded
    /// highlights hold no duplicate key, so they read back as they were written.
    @Test func attributeListedTwiceIsHighlightedOnce() throws {
        let idx = try makeIndex(#"{"searchableAttributes": ["title"]}"#, #"{"objectID": "1", "title": "Star Wars"}"#)
        let r = try search(idx, "star", #"{"attributesToHighlight": ["title", "title"]}"#)
        let encoded = try #require(r.hits[0].encodedHighlightResult)
        #expect(r.hits[0].highlightResult?.keys == ["title"])
        #expect(JSONWriter.bytes(.object(try #require(r.hits[0].highlightResult))) == Array(encoded))
    }

    @Test func partialPrefixAndNone() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["title", "body"]}"#,
            #"{"objectID": "1", "title": "Starship troopers", "body": "nothing here"}"#)
        let r = try search(idx, "troopers sta")
        let h = highlight(r, "title")
        #expect(h["value"] == "<em>Sta</em>rship <em>troopers</em>")
        #expect(h["matchLevel"] == "full")
        #expect(h["fullyHighlighted"] == false)
        let body = highlight(r, "body")
        #expect(body["matchLevel"] == "none")
        #expect(body["value"] == "nothing here")
        #expect(body["fullyHighlighted"] == nil)
        let partial = highlight(try search(idx, "troopers", #"{"optionalWords": ["starfish"]}"#), "title")
        #expect(partial["value"] == "Starship <em>troopers</em>")
    }

    @Test func nonASCIIAndTypos() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["title"]}"#, #"{"objectID": "1", "title": "Le Fabuleux Destin d’Amélie Poulain"}"#)
        let h = highlight(try search(idx, "amelie pou"), "title")
        #expect(h["value"] == "Le Fabuleux Destin d’<em>Amélie</em> <em>Pou</em>lain")
        #expect(h["matchedWords"] == ["amelie", "pou"])
        let t = highlight(try search(idx, "fabulex"), "title")
        #expect(t["value"] == "Le <em>Fabuleux</em> Destin d’Amélie Poulain")
        let prefixOfAccented = highlight(try search(idx, "am"), "title")
        #expect(prefixOfAccented["value"] == "Le Fabuleux Destin d’<em>Am</em>élie Poulain")
        let accentInPrefix = highlight(try search(idx, "ame"), "title")
        #expect(accentInPrefix["value"] == "Le Fabuleux Destin d’<em>Amé</em>lie Poulain")
    }

    @Test func arraysAndCustomTags() throws {
        let idx = try makeIndex(#"{"searchableAttributes": ["cast"]}"#, #"{"objectID": "1", "cast": ["Mark Hamill", "Harrison Ford"]}"#)
        let r = try search(idx, "ford", #"{"highlightPreTag": "[", "highlightPostTag": "]"}"#)
        let items = r.hits[0].highlightResult!["cast"]!.arrayValue!
        #expect(items.count == 2)
        #expect(items[0].objectValue!["matchLevel"] == "none")
        #expect(items[1].objectValue!["value"] == "Harrison [Ford]")
    }

    @Test func snippets() throws {
        let text = "one two three four five six seven eight nine ten eleven twelve"
        let idx = try makeIndex(#"{"searchableAttributes": ["extract"]}"#, #"{"objectID": "1", "extract": "\#(text)"}"#)
        let r = try search(idx, "nine", #"{"attributesToSnippet": ["extract:4"]}"#)
        let s = r.hits[0].snippetResult!["extract"]!.objectValue!
        #expect(s["value"] == "…seven eight <em>nine</em> ten…")
        #expect(s["matchLevel"] == "full")
        let start = try search(idx, "", #"{"attributesToSnippet": ["extract:3"], "snippetEllipsisText": "..."}"#)
        #expect(start.hits[0].snippetResult!["extract"]!.objectValue!["value"] == "one two three...")
    }

    /// Centring the window on its first match never pushes a match out of it: a one- or
    /// two-word snippet still shows its match, a window full of matches keeps them all.
    @Test func snippetWindowKeepsItsMatches() throws {
        let idx = try makeIndex(
            #"{"searchableAttributes": ["extract"]}"#, #"{"objectID": "1", "extract": "one two three four five six seven"}"#)
        func snippet(_ q: String, _ words: Int) throws -> JSONValue? {
            try search(idx, q, #"{"attributesToSnippet": ["extract:\#(words)"]}"#).hits[0].snippetResult!["extract"]!.objectValue!["value"]
        }
        #expect(try snippet("four", 1) == "…<em>four</em>…")
        #expect(try snippet("four", 2) == "…three <em>four</em>…")
        #expect(try snippet("four five six", 3) == "…<em>four</em> <em>five</em> <em>six</em>…")
        #expect(try snippet("four", 3) == "…two three <em>four</em>…")  // a lone match keeps its context
    }

}
