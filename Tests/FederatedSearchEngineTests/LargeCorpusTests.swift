import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// The matching paths that only large corpora take: frequent terms with bitmaps, many-term
/// words (prefixes, typo variants) gathered into bitmaps, and words deferred to the
/// candidates of a far rarer word. Checked against the naive ``ReferenceModel``.
@Suite struct LargeCorpusTests {
    /// Checks that nbHits and facet counts equal the reference's on a 3,000-document corpus
    /// with a skewed vocabulary, for random queries with prefixes, typos and filters.
    @Test func largeCorpusAgreesWithReference() throws {
        var g = ReferencePropertyTests.Generator(state: 2024)
        let docs = PruningTests.corpus(&g, count: 3000)
        let settings = try IndexSettings.decode(
            json(#"{"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category"]}"#).objectValue!,
            path: "s")
        let index = try EmbeddedIndex(name: "p", settings: settings, documents: docs)
        let reference = ReferenceModel(docs: docs, searchable: ["title", "body"])
        var queries = [
            "alpha b", "kappa a", "lambda o", "sigma al", "alpha beta g", "kappa alphx", "gamma betq",
            "theta e", "a", "o", "alpha", "alpha beta", "beta alpha gamma",
        ]
        for _ in 0..<25 { queries.append(PruningTests.query(&g)) }
        for q in queries {
            for (typos, filter) in [(false, nil), (true, nil), (false, "category:books")] as [(Bool, String?)] {
                do {
                    var p = SearchParameters()
                    p.hitsPerPage = 5
                    p.facets = ["category"]
                    p.typoTolerance = typos
                    if let filter {
                        p.filters = filter
                        p.filter = try FilterParser.parse(filter)
                    }
                    let r = try index.searchSync(SearchQuery(text: q, parameters: p))
                    let expected = reference.search(q, filter: p.filter, typos: typos)
                    let context = "query '\(q)' typos \(typos) filter \(filter ?? "none")"
                    #expect(r.nbHits == expected.count, "\(context)")
                    #expect(counts(r, "category") == ReferenceModel.count(expected, facet: "category"), "\(context)")
                    let ids = Set(expected.map { $0["objectID"]!.stringValue! })
                    #expect(r.hits.allSatisfy { ids.contains($0.objectID) }, "\(context)")
                }
            }
        }
    }

    /// Checks that a prefix whose first term occurs only in late documents still finds the
    /// early documents of its other terms (postings are ascending per term, not per range).
    @Test func prefixRangeFindsEveryDocument() throws {
        var lines: [String] = []
        for i in 0..<200 { lines.append(#"{"objectID": "\#(i)", "title": "\#(i < 100 ? "zebra" : "zeal")"}"#) }
        let index = try makeIndex(#"{"searchableAttributes": ["title"]}"#, lines.joined(separator: "\n"))
        #expect(try search(index, "ze").nbHits == 200)
        #expect(try search(index, "zea").nbHits == 100)
        #expect(try search(index, "ze", #"{"advancedSyntax": true}"#).nbHits == 200)
    }

    /// Checks that a word with synonyms of several words still merges its terms correctly
    /// (that path merges hits into a list).
    @Test func synonymPhraseWordsMergeEveryTerm() throws {
        var lines: [String] = []
        for i in 0..<200 {
            lines.append(#"{"objectID": "\#(i)", "title": "\#(i < 100 ? "zebra" : "zeal") \#(i % 2 == 0 ? "big cat" : "tiger")"}"#)
        }
        let index = try makeIndex(
            #"{"searchableAttributes": ["title"], "synonyms": [{"type": "synonym", "synonyms": ["tiger", "big cat"]}]}"#,
            lines.joined(separator: "\n"))
        #expect(try search(index, "tiger").nbHits == 200)
        #expect(try search(index, "ze tiger", #"{"queryType": "prefixAll"}"#).nbHits == 200)
    }
}
