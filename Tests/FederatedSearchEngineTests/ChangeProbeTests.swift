import FederatedSearchCore
import Foundation
import Testing
@testable import FederatedSearchEngine

/// Property test of the live subscriptions' percolator: for random write groups (new
/// documents, replacements, partial updates of a text or a non-text attribute, deletes) and
/// random queries (words with typos and prefixes, exclusions, phrases, synonyms, the empty
/// query; filters, disjunctive facets, typo modes, removeWordsIfNoResults, distinct), a query
/// the probe says the group cannot have changed answers exactly the same before and after it:
/// hits, scores, highlights, counts, facets, stats. And the probe does spare queries.
@Suite struct ChangeProbeTests {
    typealias Generator = ReferencePropertyTests.Generator
    typealias Model = IncrementalUpdateTests.Model

    /// The update tests' settings, and one with multi-word synonyms (one holding stop words)
    /// and stop words removed: a query's words are grouped into synonym units after its stop
    /// words go, so a probe reading them otherwise would miss matches.
    static let variants =
        IncrementalUpdateTests.settingsVariants + [
            """
            {"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category", "price"], "removeStopWords": true,
             "synonyms": [["apple band", "goat"], ["cat of the dog", "fox"]]}
            """
        ]
    static let synonymQueries = ["apple -band", "apple band", "cat of the dog", "\"apple\" band", "band apple -goat", "the cat", "of dog"]

    /// A document, now and then with the words of the synonyms and stop words in its title.
    static func document(_ id: String, _ g: inout Generator, variant: Int) -> JSONObject {
        var d = IncrementalUpdateTests.document(id, &g)
        if variant == 3, Int.random(in: 0..<3, using: &g) == 0 {
            d["title"] = .string(["Cat Of The Dog ", "Apple ", "Band The "].randomElement(using: &g)! + (d["title"]?.stringValue ?? ""))
        }
        return d
    }

    @Test(arguments: 0..<24)
    func aQueryTheProbeSparesAnswersTheSame(seed: Int) throws {
        var g = Generator(state: UInt64(seed) &* 104_729 &+ 3)
        let variant = seed % Self.variants.count
        let settings = try IndexSettings.decode(json(Self.variants[variant]).objectValue!, path: "settings")
        var model = Model()
        for i in 0..<30 { _ = model.put(Self.document("d\(i)", &g, variant: variant)) }
        var (spared, tried) = (0, 0)
        for step in 0..<25 {
            let before = try EmbeddedIndex(
                name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
            var old: [String: JSONObject] = [:]
            var new: [String: JSONObject?] = [:]
            for _ in 0..<Int.random(in: 1...2, using: &g) {
                let existing = model.docs.keys.sorted()
                guard let id = existing.randomElement(using: &g) else { break }
                if old[id] == nil, new[id] == nil { old[id] = model.docs[id]!.document }
                var d = model.docs[id]!.document
                switch Int.random(in: 0..<10, using: &g) {
                case 0:  // a new document
                    let fresh = Self.document("n\(step)", &g, variant: variant)
                    _ = model.put(fresh)
                    new["n\(step)"] = .some(fresh)
                    continue
                case 1:  // deleted
                    model.docs[id] = nil
                    new[id] = .some(nil)
                    continue
                case 2, 3:  // replaced whole
                    d = Self.document(id, &g, variant: variant)
                case 4:  // a word of the title replaced (the same length in words)
                    var words = (d["title"]?.stringValue ?? "").split(separator: " ").map(String.init)
                    if !words.isEmpty {
                        words[Int.random(in: 0..<words.count, using: &g)] = IncrementalUpdateTests.vocabulary.randomElement(using: &g)!
                    }
                    d["title"] = .string(words.joined(separator: " "))
                case 5, 6:  // the category changed
                    d["category"] = .string(ReferencePropertyTests.categories.randomElement(using: &g)!)
                default:  // the price or the rank changed
                    d["price"] = .number(Double(Int.random(in: 100...4000, using: &g)) / 100)
                    d["rank"] = .number(Double(Int.random(in: 0...6, using: &g)))
                }
                _ = model.put(d)
                new[id] = .some(d)
            }
            let after = try EmbeddedIndex(
                name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
            let probe = try ChangeProbe(
                name: "t", settings: settings, before: Array(old.values), after: new.values.compactMap { $0 })
            for _ in 0..<12 {
                var text = Int.random(in: 0..<4, using: &g) == 0 ? "" : ReferencePropertyTests.query(&g)
                if variant == 3, Bool.random(using: &g) { text = Self.synonymQueries.randomElement(using: &g)! }
                switch Int.random(in: 0..<10, using: &g) {
                case 0: text += " -\(IncrementalUpdateTests.vocabulary.randomElement(using: &g)!)"
                case 1:
                    text =
                        "\"\(IncrementalUpdateTests.vocabulary.randomElement(using: &g)!) \(IncrementalUpdateTests.vocabulary.randomElement(using: &g)!)\""
                case 2: text += " hound"
                default: break
                }
                var params = IncrementalUpdateTests.parameters(&g, distinct: variant == 1)
                // Ranking info now and then only: a query asking for it is never spared.
                if Int.random(in: 0..<4, using: &g) != 0 {
                    params = params.replacingOccurrences(of: "\"getRankingInfo\": true", with: "\"getRankingInfo\": false")
                }
                let query = SearchQuery(text: text, parameters: try SearchParameters.decode(json(params).objectValue!))
                tried += 1
                guard !probe.mayAffect(query) else { continue }
                spared += 1
                let a = IncrementalUpdateTests.summary(try search(before, text, params))
                let b = IncrementalUpdateTests.summary(try search(after, text, params))
                #expect(
                    a == b,
                    "seed \(seed) step \(step) query '\(text)' \(params), before \(old.keys.sorted()) after \(new.keys.sorted()) corpus \(probe.corpusChanged)"
                )
            }
        }
        // It spares some queries (a probe that always says "may have changed" would pass the
        // test above and spare nothing).
        #expect(spared * 20 >= tried, "spared \(spared) of \(tried)")
    }
}
