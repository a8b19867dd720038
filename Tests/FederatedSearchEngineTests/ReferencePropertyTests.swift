import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Property test: on random small corpora and random queries (words, prefixes, typo'd
/// words) with random filters, the engine and the naive ``ReferenceModel`` agree exactly on
/// the matching set, nbHits, facet counts, and disjunctive facet counts.
@Suite struct ReferencePropertyTests {
    static let vocabulary = [
        "apple", "apply", "ample", "banana", "band", "bandana", "cat", "catalog", "cart",
        "dog", "dot", "drama", "dramatic", "eagle", "easel", "fox", "foxglove", "goat",
    ]
    static let categories = ["books", "games", "music", "tools"]
    static let tags = ["red", "green", "blue"]

    /// A deterministic generator (SplitMix64), so a failure reproduces from its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func corpus(_ g: inout Generator) -> [JSONObject] {
        (0..<Int.random(in: 5...40, using: &g)).map { i in
            let title = (0..<Int.random(in: 1...5, using: &g)).map { _ in vocabulary.randomElement(using: &g)! }
            let docTags = tags.filter { _ in Bool.random(using: &g) }
            return JSONObject([
                ("objectID", .string("d\(i)")),
                ("title", .string(title.joined(separator: " ").capitalized)),
                ("body", .array([.string(vocabulary.randomElement(using: &g)!)])),
                ("category", .string(categories.randomElement(using: &g)!)),
                ("tags", .array(docTags.map { .string($0) })),
                ("price", .number(Double(Int.random(in: 1...100, using: &g)))),
            ])
        }
    }

    static func query(_ g: inout Generator) -> String {
        (0..<Int.random(in: 0...3, using: &g)).map { _ in
            var w = Array(vocabulary.randomElement(using: &g)!)
            switch Int.random(in: 0..<4, using: &g) {
            case 0: w = Array(w.prefix(Int.random(in: 1...w.count, using: &g)))  // a prefix
            case 1: w[Int.random(in: 0..<w.count, using: &g)] = "xyzae".randomElement(using: &g)!  // a typo
            case 2 where w.count > 2:
                let i = Int.random(in: 0..<(w.count - 1), using: &g)
                w.swapAt(i, i + 1)  // a transposition
            default: break
            }
            return String(w)
        }.joined(separator: " ")
    }

    static func filter(_ g: inout Generator) -> String? {
        let c = categories.randomElement(using: &g)!
        let t = tags.randomElement(using: &g)!
        let n = Int.random(in: 1...100, using: &g)
        return [
            nil, "category:\(c)", "price > \(n)", "category:\(c) OR tags:\(t)", "NOT tags:\(t)",
            "price:\(n) TO \(n + 30) AND NOT category:\(c)",
        ].randomElement(using: &g)!
    }

    @Test(arguments: 0..<60)
    func engineAgreesWithReference(seed: Int) throws {
        var g = Generator(state: UInt64(seed) &* 7919)
        let docs = Self.corpus(&g)
        let settings = try IndexSettings.decode(
            json(#"{"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category", "tags", "price"]}"#).objectValue!,
            path: "s")
        let index = try EmbeddedIndex(name: "p", settings: settings, documents: docs)
        let reference = ReferenceModel(docs: docs, searchable: ["title", "body"])
        for _ in 0..<25 {
            let q = Self.query(&g)
            let f = Self.filter(&g)
            let typos = Bool.random(using: &g)
            var p = SearchParameters()
            p.hitsPerPage = 1000
            p.facets = ["category", "tags"]
            p.typoTolerance = typos
            if let f {
                p.filters = f
                p.filter = try FilterParser.parse(f)
            }
            let r = try index.searchSync(SearchQuery(text: q, parameters: p))
            let expected = reference.search(q, filter: p.filter, typos: typos)
            let context = "seed \(seed) query '\(q)' filter \(f ?? "none") typos \(typos)"
            #expect(Set(r.hits.map(\.objectID)) == Set(expected.map { $0["objectID"]!.stringValue! }), "\(context)")
            #expect(r.nbHits == expected.count, "\(context)")
            #expect(counts(r, "category") == ReferenceModel.count(expected, facet: "category"), "\(context)")
            #expect(counts(r, "tags") == ReferenceModel.count(expected, facet: "tags"), "\(context)")

            // Disjunctive: refine category to two values; its counts ignore that refinement.
            let c1 = Self.categories.randomElement(using: &g)!
            let c2 = Self.categories.randomElement(using: &g)!
            var d = p
            d.disjunctiveFacets = ["category"]
            d.filters = nil
            d.filter = FilterExpression.allOf([
                .or([.facet(attribute: "category", value: c1), .facet(attribute: "category", value: c2)]), p.filter,
            ])
            let rd = try index.searchSync(SearchQuery(text: q, parameters: d))
            let refined = reference.search(q, filter: d.filter, typos: typos)
            // Documented semantics: the top-level conditions (nested ANDs flattened) on the
            // disjunctive facet alone are ignored for its counts; every other condition applies.
            var conjuncts: [FilterExpression] = []
            func addConjuncts(_ e: FilterExpression) {
                if case .and(let parts) = e { parts.forEach(addConjuncts) } else { conjuncts.append(e) }
            }
            if let f = d.filter { addConjuncts(f) }
            let unrefined = reference.search(
                q, filter: FilterExpression.allOf(conjuncts.filter { $0.attributes != ["category"] }), typos: typos)
            #expect(Set(rd.hits.map(\.objectID)) == Set(refined.map { $0["objectID"]!.stringValue! }), "\(context) disjunctive")
            #expect(counts(rd, "category") == ReferenceModel.count(unrefined, facet: "category"), "\(context) disjunctive")
            #expect(counts(rd, "tags") == ReferenceModel.count(refined, facet: "tags"), "\(context) disjunctive")
        }
    }
}
