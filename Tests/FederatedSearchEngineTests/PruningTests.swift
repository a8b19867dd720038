import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Top-k pruning (skipping documents whose key bound cannot enter the page, stopping once
/// the page holds the best possible keys) and bitmap intersections must change nothing:
/// the pruned engine and the same engine ranking every candidate agree on the page, its
/// order and scores, nbHits and facet counts, on corpora large enough for frequent terms
/// to get bitmaps.
@Suite struct PruningTests {
    /// A skewed vocabulary: the first words occur in most documents (they get bitmaps).
    static let vocabulary = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda",
        "sigma", "omega", "orbit", "ocean", "opera", "onion", "otter",
    ]

    static func corpus(_ g: inout ReferencePropertyTests.Generator, count: Int) -> [JSONObject] {
        func word(_ g: inout ReferencePropertyTests.Generator) -> String {
            // Index ~ geometric: word 0 about half the time, word 1 a quarter, ...
            var i = 0
            while i < vocabulary.count - 1 && Bool.random(using: &g) { i += 1 }
            return vocabulary[i]
        }
        return (0..<count).map { i in
            let title = (0..<Int.random(in: 1...6, using: &g)).map { _ in word(&g) }
            let body = (0..<Int.random(in: 0...4, using: &g)).map { _ in word(&g) }
            return JSONObject([
                ("objectID", .string("d\(i)")),
                ("title", .string(title.joined(separator: " "))),
                ("body", .string(body.joined(separator: " "))),
                ("category", .string(["books", "games", "music"].randomElement(using: &g)!)),
                ("popularity", .number(Double(Int.random(in: 0...50, using: &g)))),
            ])
        }
    }

    static func query(_ g: inout ReferencePropertyTests.Generator) -> String {
        (0..<Int.random(in: 1...3, using: &g)).map { _ in
            var w = Array(vocabulary[Int.random(in: 0..<8, using: &g)])
            switch Int.random(in: 0..<5, using: &g) {
            case 0: w = Array(w.prefix(Int.random(in: 1...w.count, using: &g)))
            case 1: w[Int.random(in: 0..<w.count, using: &g)] = "xyz".randomElement(using: &g)!
            default: break
            }
            return String(w)
        }.joined(separator: " ")
    }

    static let settings = [
        #"{"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category"]}"#,
        #"{"searchableAttributes": ["title", "unordered(body)"], "attributesForFaceting": ["category"], "customRanking": ["desc(popularity)"]}"#,
        #"{"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category"], "ranking": ["words", "proximity", "bm25", "typo", "attribute"]}"#,
        // No typo, exact or BM25 rule: best-level and other documents often tie on every rule,
        // and the document number decides (tier 2 must not stop at a tie with a later tier-1 document).
        #"{"searchableAttributes": ["title", "unordered(body)"], "attributesForFaceting": ["category"], "ranking": ["words", "attribute"]}"#,
    ]

    @Test(arguments: 0..<4)
    func prunedRankingEqualsFullRanking(variant: Int) throws {
        var g = ReferencePropertyTests.Generator(state: UInt64(variant) &* 104_729 &+ 1)
        let docs = Self.corpus(&g, count: 3000)
        let settings = try IndexSettings.decode(json(Self.settings[variant]).objectValue!, path: "s")
        let index = try EmbeddedIndex(name: "p", settings: settings, documents: docs)
        #expect(index.snapshot.text.bitmaps.bits.count > 0, "the corpus must exercise bitmaps")
        for _ in 0..<120 {
            let q = Self.query(&g)
            var p = SearchParameters()
            p.hitsPerPage = [1, 10, 20].randomElement(using: &g)!
            p.page = Int.random(in: 0...2, using: &g)
            p.facets = ["category"]
            p.getRankingInfo = true
            p.attributesToHighlight = []
            p.typoTolerance = Bool.random(using: &g)
            p.queryType = [.prefixLast, .prefixNone, .prefixAll].randomElement(using: &g)!
            switch Int.random(in: 0..<5, using: &g) {
            case 0: p.matchingStrategy = .any
            case 1: p.optionalWords = [String(q.split(separator: " ").first ?? "")]
            case 2:
                p.filters = "category:books"
                p.filter = try FilterParser.parse("category:books")
            default: break
            }
            let pruned = try index.run(SearchQuery(text: q, parameters: p), pruning: true)
            let full = try index.run(SearchQuery(text: q, parameters: p), pruning: false)
            let context = "variant \(variant) query '\(q)' page \(p.page)x\(p.hitsPerPage)"
            #expect(ids(pruned) == ids(full), "\(context)")
            #expect(pruned.hits.map(\.rankingScore) == full.hits.map(\.rankingScore), "\(context)")
            #expect(pruned.nbHits == full.nbHits, "\(context)")
            #expect(counts(pruned, "category") == counts(full, "category"), "\(context)")
        }
    }

    /// Checks that bitmap intersections find exactly the documents that hold every word.
    @Test func bitmapIntersectionMatchesAScan() throws {
        var g = ReferencePropertyTests.Generator(state: 42)
        let docs = Self.corpus(&g, count: 4000)
        let settings = try IndexSettings.decode(json(#"{"searchableAttributes": ["title", "body"]}"#).objectValue!, path: "s")
        let index = try EmbeddedIndex(name: "p", settings: settings, documents: docs)
        let words = docs.map { d in
            Set((d["title"]!.stringValue! + " " + d["body"]!.stringValue!).split(separator: " ").map(String.init))
        }
        for a in Self.vocabulary.prefix(5) {
            for b in Self.vocabulary.prefix(6) where a != b {
                for c in [nil, "sigma", "alpha"] {
                    let q = [a, b, c].compactMap { $0 }
                    let r = try search(
                        index, q.joined(separator: " "), #"{"typoTolerance": false, "queryType": "prefixNone", "hitsPerPage": 5}"#)
                    let expected = words.filter { w in q.allSatisfy(w.contains) }.count
                    #expect(r.nbHits == expected, "\(q)")
                }
            }
        }
    }

    /// Checks the bitmap rank: the rank of a document is its offset in the term's posting list.
    @Test func bitmapRankIsPostingOffset() throws {
        var g = ReferencePropertyTests.Generator(state: 7)
        let docs = Self.corpus(&g, count: 3000)
        let index = try EmbeddedIndex(name: "p", settings: IndexSettings(), documents: docs)
        let text = index.snapshot.text
        var checked = 0
        for t in 0..<text.dictionary.count {
            guard let slot = text.bitmaps.slot(ofTerm: t) else { continue }
            for (offset, p) in text.postings.postings(t).enumerated() {
                let d = text.postings.docs[p]
                #expect(text.bitmaps.contains(slot, d))
                #expect(text.bitmaps.rank(slot, d) == offset)
                checked += 1
            }
        }
        #expect(checked > 1024)
    }
}
