import Foundation
import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// The fast highlighting path (only attributes and words the forward index shows can match
/// are analysed, see HighlightCandidates) must produce exactly the word-by-word highlighter's
/// output: same `_highlightResult` and `_snippetResult`, on the demo data (long extracts,
/// cast arrays, non-ASCII names) and random queries with prefixes, typos, phrases, synonyms
/// and stemming.
@Suite struct HighlightEquivalenceTests {
    static let dataDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Configs/data")

    static func load(_ name: String, count: Int) -> [JSONObject] {
        let text = (try? String(contentsOf: dataDirectory.appendingPathComponent("\(name).ndjson"), encoding: .utf8)) ?? ""
        return Array(documents(text).prefix(count))
    }

    /// Words of random documents, as typed: whole, cut to a prefix, with a typo, or a pair.
    static func query(_ docs: [JSONObject], _ fields: [String], _ g: inout ReferencePropertyTests.Generator) -> String {
        func word() -> String {
            let doc = docs[Int.random(in: 0..<docs.count, using: &g)]
            var text = ""
            if let v = doc[fields[Int.random(in: 0..<fields.count, using: &g)]] {
                switch v {
                case .string(let s): text = s
                case .array(let items): text = items.compactMap(\.stringValue).joined(separator: " ")
                default: break
                }
            }
            let words = text.split(separator: " ").map(String.init)
            guard var w = words.randomElement(using: &g).map(Array.init), !w.isEmpty else { return "the" }
            switch Int.random(in: 0..<6, using: &g) {
            case 0: w = Array(w.prefix(Int.random(in: 1...w.count, using: &g)))
            case 1: w[Int.random(in: 0..<w.count, using: &g)] = "aeiou".randomElement(using: &g)!
            case 2 where w.count > 3: w.swapAt(1, 2)
            default: break
            }
            return String(w)
        }
        switch Int.random(in: 0..<6, using: &g) {
        case 0, 1: return word() + " " + word()
        case 2: return "\"\(word()) \(word())\" \(word())"
        default: return word()
        }
    }

    static let variants: [(data: String, settings: String, fields: [String])] = [
        (
            "movies",
            #"{"searchableAttributes": ["title", "cast", "genres", "unordered(extract)"], "attributesForFaceting": ["genres", "year", "cast"], "customRanking": ["desc(year)"]}"#,
            ["title", "cast", "extract"]
        ),
        (
            "movies",
            #"{"searchableAttributes": ["title", "cast", "unordered(extract)"], "queryLanguages": ["en"], "removeStopWords": true, "synonyms": [["film", "movie", "picture"], {"type": "oneWaySynonym", "input": "nyc", "synonyms": ["new york"]}, ["big apple", "new york city"]]}"#,
            ["title", "extract"]
        ),
        (
            "products",
            #"{"searchableAttributes": ["title", "name", "supplier", "unordered(short_description)"], "attributesForFaceting": ["supplier", "price", "attr_t_product_type"]}"#,
            ["title", "short_description"]
        ),
    ]

    @Test(arguments: 0..<3)
    func fastHighlightEqualsWordByWord(variant: Int) throws {
        let v = Self.variants[variant]
        let docs = Self.load(v.data, count: 600)
        try #require(docs.count == 600, "the demo data is in Configs/data")
        let settings = try IndexSettings.decode(json(v.settings).objectValue!, path: "s")
        let index = try EmbeddedIndex(name: v.data, settings: settings, documents: docs)
        var g = ReferencePropertyTests.Generator(state: UInt64(variant) &* 7919 &+ 3)
        var marked = 0
        for i in 0..<150 {
            let q = i == 0 ? "nyc" : i == 1 ? "big apple" : Self.query(docs, v.fields, &g)
            var p = SearchParameters()
            p.hitsPerPage = [5, 10, 20].randomElement(using: &g)!
            p.advancedSyntax = true
            p.queryType = [.prefixLast, .prefixNone, .prefixAll].randomElement(using: &g)!
            p.typoTolerance = Int.random(in: 0..<4, using: &g) > 0
            switch Int.random(in: 0..<6, using: &g) {
            case 0: p.attributesToSnippet = ["extract:8", "short_description:4", "title"]
            case 1: p.attributesToHighlight = ["title", "year", "price", "supplier"]
            case 2: p.attributesToHighlight = ["*"]
            case 3:
                p.highlightPreTag = "«"
                p.highlightPostTag = "»"
            case 4: p.matchingStrategy = .any
            default: break
            }
            let query = SearchQuery(text: q, parameters: p)
            var fast = try index.run(query, fastHighlight: true)
            var reference = try index.run(query, fastHighlight: false)
            fast.processingTimeMS = 0
            reference.processingTimeMS = 0
            #expect(fast == reference, "variant \(variant) query '\(q)'")
            marked += fast.hits.filter { JSONWriter.string(.object($0.highlightResult ?? [:])).contains("\"full\"") }.count
        }
        #expect(marked > 50, "the queries must highlight something")
    }

    /// Normalised spans cover the same terms, each with its best flags, disjoint and ascending.
    @Test func normalisedSpansKeepEachTermsBestFlags() {
        var g = ReferencePropertyTests.Generator(state: 42)
        for _ in 0..<500 {
            let spans = (0..<Int.random(in: 0...8, using: &g)).map { _ -> TermSpan in
                let lo = Int.random(in: 0..<40, using: &g)
                return TermSpan(lo: lo, hi: lo + Int.random(in: 0...10, using: &g), flags: UInt32.random(in: 0...5, using: &g))
            }
            let normalised = TermSpan.normalized(spans)
            for t in 0..<60 {
                let best = spans.filter { $0.lo <= t && t < $0.hi }.map(\.flags).min()
                let found = normalised.filter { $0.lo <= t && t < $0.hi }
                #expect(found.count == (best == nil ? 0 : 1))
                #expect(found.first?.flags == best)
            }
            for (a, b) in zip(normalised, normalised.dropFirst()) {
                #expect(a.hi <= b.lo && !(a.hi == b.lo && a.flags == b.flags))
            }
        }
    }
}
