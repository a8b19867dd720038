import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Property test: an index updated in place (random upserts, partial updates, deletes,
/// deletes by filter and clears, with merges now and then) answers every random query
/// exactly as an index built whole from the same documents: the same hits in the same order
/// with the same scores and highlights, nbHits, facet counts (conjunctive and disjunctive),
/// facet values and facet stats.
@Suite struct IncrementalUpdateTests {
    typealias Generator = ReferencePropertyTests.Generator
    static let vocabulary = ReferencePropertyTests.vocabulary
    static let brands = ["acme", "globex", "initech", "umbrella", "hooli"]

    /// Settings that exercise every rule across segments: custom ranking, a sort rule,
    /// BM25, distinct, disjunctive facets, stems, synonyms.
    static let settingsVariants = [
        """
        {"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category", "searchable(brand)", "tags", "price"],
         "customRanking": ["desc(rank)"]}
        """,
        """
        {"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category", "brand", "price"],
         "ranking": ["asc(price)", "typo", "words", "proximity", "attribute", "exact", "bm25", "custom"],
         "customRanking": ["desc(rank)", "asc(price)"], "attributeForDistinct": "brand", "distinct": 1}
        """,
        """
        {"searchableAttributes": ["title", "body"], "attributesForFaceting": ["category", "tags", "price"],
         "ranking": ["bm25", "typo", "words"], "synonyms": [["dog", "hound"]], "ignorePlurals": true}
        """,
    ]

    static func document(_ id: String, _ g: inout Generator) -> JSONObject {
        let title = (0..<Int.random(in: 1...5, using: &g)).map { _ in vocabulary.randomElement(using: &g)! }
        return JSONObject([
            ("objectID", .string(id)),
            ("title", .string(title.joined(separator: " ").capitalized)),
            ("body", .array([.string(vocabulary.randomElement(using: &g)!), .string(vocabulary.randomElement(using: &g)!)])),
            // Now and then in capitals: a filter matches a value exactly where the index has
            // it, else folded, and that holds for the index as a whole.
            (
                "category",
                .string(
                    Int.random(in: 0..<5, using: &g) == 0
                        ? ReferencePropertyTests.categories.randomElement(using: &g)!.uppercased()
                        : ReferencePropertyTests.categories.randomElement(using: &g)!)
            ),
            ("brand", .string(brands.randomElement(using: &g)!)),
            ("tags", .array(ReferencePropertyTests.tags.filter { _ in Bool.random(using: &g) }.map { .string($0) })),
            // In cents: sums of such values in another order differ in the last bits, which
            // facets_stats must not (they are summed exactly).
            ("price", .number(Double(Int.random(in: 100...4000, using: &g)) / 100)),
            ("rank", .number(Double(Int.random(in: 0...6, using: &g)))),
        ])
    }

    /// The documents as a durable index keeps them: by objectID, each at the position of its
    /// first insertion, positions growing.
    struct Model {
        var docs: [String: (position: Int64, document: JSONObject)] = [:]
        var next: Int64 = 0

        mutating func put(_ d: JSONObject) -> Int64 {
            guard case .string(let id)? = d["objectID"] else { fatalError("no objectID") }
            let position = docs[id]?.position ?? next
            if docs[id] == nil { next += 1 }
            docs[id] = (position, d)
            return position
        }

        var ordered: [(position: Int64, document: JSONObject)] { docs.values.sorted { $0.position < $1.position } }
    }

    static func parameters(_ g: inout Generator, distinct: Bool) -> String {
        var p: [String] = [
            "\"hitsPerPage\": \(Int.random(in: 1...8, using: &g))", "\"page\": \(Int.random(in: 0...1, using: &g))",
            "\"facets\": [\"category\", \"brand\", \"tags\", \"price\"]", "\"getRankingInfo\": \(Bool.random(using: &g))",
        ]
        let c = ReferencePropertyTests.categories.randomElement(using: &g)!
        switch Int.random(in: 0..<11, using: &g) {
        case 0: p.append("\"filters\": \"category:\(c)\"")
        case 1: p.append("\"filters\": \"price > \(Int.random(in: 1...40, using: &g))\"")
        case 2: p.append("\"facetFilters\": [[\"category:\(c)\", \"category:BOOKS\"]], \"disjunctiveFacets\": [\"category\"]")
        case 3: p.append("\"typoTolerance\": \"min\"")
        case 4: p.append("\"removeWordsIfNoResults\": \"lastWords\"")
        case 5: p.append("\"typoTolerance\": \"strict\", \"facetFilters\": [\"category:\(c)\"], \"disjunctiveFacets\": [\"category\"]")
        case 6: p.append("\"restrictSearchableAttributes\": [\"body\"]")
        case 7: p.append("\"sortFacetValuesBy\": \"alpha\", \"maxValuesPerFacet\": 2")
        case 8: p.append("\"offset\": \(Int.random(in: 0...4, using: &g)), \"length\": 3, \"maxValuesPerFacet\": 1")
        case 9: p.append("\"removeWordsIfNoResults\": \"allOptional\"")
        default: break
        }
        if distinct && Bool.random(using: &g) { p.append("\"distinct\": 0") }
        return "{" + p.joined(separator: ", ") + "}"
    }

    /// What must agree, as text: hits with scores and highlights, counts, facets, stats.
    static func summary(_ r: SearchResults) -> String {
        var out = "nbHits \(r.nbHits) pages \(r.nbPages)\n"
        for h in r.hits {
            let highlight = h.encodedHighlightResult.map { String(decoding: $0, as: UTF8.self) } ?? "-"
            // The ranking info but its timings: userScore among it, from the values.
            let info = h.rankingInfo.map { i in JSONWriter.string(.object(i)) } ?? "-"
            out += "\(h.objectID) \(h.rankingScore) \(highlight) \(info)\n"
        }
        for f in r.facets { out += "facet \(f.attribute): \(f.values.map { "\($0.value)=\($0.count)" })\n" }
        for s in r.facetsStats { out += "stats \(s.attribute) \(s.min) \(s.max) \(s.sum) \(s.avg)\n" }
        return out
    }

    @Test(arguments: 0..<24)
    func updatesInPlaceAnswerAsARebuild(seed: Int) throws {
        var g = Generator(state: UInt64(seed) &* 7919 &+ 17)
        let variant = seed % Self.settingsVariants.count
        let settings = try IndexSettings.decode(json(Self.settingsVariants[variant]).objectValue!, path: "settings")
        var model = Model()
        var initial: [JSONObject] = []
        for i in 0..<Int.random(in: 0...30, using: &g) { initial.append(Self.document("d\(i)", &g)) }
        let positions = initial.map { model.put($0) }
        var index = try EmbeddedIndex(name: "t", settings: settings, documents: initial, positions: positions)
        #expect(index.updatesInPlace)
        var merges = 0
        for step in 0..<40 {
            var adding: [String: (position: Int64, document: JSONObject)] = [:]
            var deleting: [String] = []
            let existing = model.docs.keys.sorted()
            switch Int.random(in: 0..<100, using: &g) {
            case 0..<45:  // a batch of upserts, new and existing ids
                for _ in 0..<Int.random(in: 1...4, using: &g) {
                    let id =
                        Bool.random(using: &g) || existing.isEmpty
                        ? "n\(step)_\(Int.random(in: 0...3, using: &g))" : existing.randomElement(using: &g)!
                    let d = Self.document(id, &g)
                    adding[id] = (model.put(d), d)
                }
            case 45..<60:  // a partial update
                guard let id = existing.randomElement(using: &g) else { continue }
                var d = model.docs[id]!.document
                d["price"] = .number(Double(Int.random(in: 1...40, using: &g)))
                d["title"] = .string(Self.vocabulary.randomElement(using: &g)!)
                adding[id] = (model.put(d), d)
            case 60..<85:  // deletes
                for _ in 0..<Int.random(in: 1...3, using: &g) {
                    guard let id = existing.randomElement(using: &g) else { break }
                    deleting.append(id)
                    model.docs[id] = nil
                }
            case 85..<95:  // delete by filter
                let c = ReferencePropertyTests.categories.randomElement(using: &g)!
                let filter = variant == 2 ? "category:\(c) AND tags:red" : "category:\(c) AND price < 15"
                let p = try SearchParameters.decode(json("{\"filters\": \"\(filter)\"}").objectValue!)
                let ids = try index.objectIDs(matching: p)
                // The value matches exactly where some document has it exactly, else folded.
                let exact = model.docs.values.contains { $0.document["category"]?.stringValue == c }
                let expected = model.docs.filter { e in
                    let d = e.value.document
                    let category = d["category"]?.stringValue ?? ""
                    guard exact ? category == c : category.lowercased() == c else { return false }
                    if variant == 2 { return d["tags"]?.arrayValue?.contains(.string("red")) ?? false }
                    return (d["price"]?.numberValue ?? 0) < 15
                }.map(\.key)
                #expect(Set(ids) == Set(expected), "deleteBy ids, seed \(seed) step \(step)")
                deleting = ids
                for id in ids { model.docs[id] = nil }
            default:  // clear
                deleting = existing
                model.docs = [:]
            }
            index = try index.updated(adding: Array(adding.values), deleting: deleting)
            if Int.random(in: 0..<4, using: &g) == 0,
                let merge = index.plannedMerge(.small) ?? index.plannedMerge(.base) ?? Self.anyMerge(index)
            {
                // Deleting while the merge runs, as the writer may, then completing it.
                let built = try index.build(merge)
                if let id = model.docs.keys.sorted().first, Bool.random(using: &g) {
                    index = try index.updated(adding: [], deleting: [id])
                    model.docs[id] = nil
                }
                index = index.completing(built)
                merges += 1
            }

            let fresh = try EmbeddedIndex(
                name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
            #expect(index.documentCount == fresh.documentCount)
            for _ in 0..<6 {
                var text = ReferencePropertyTests.query(&g)
                switch Int.random(in: 0..<8, using: &g) {  // an exclusion, a phrase, a synonym
                case 0: text += " -\(Self.vocabulary.randomElement(using: &g)!)"
                case 1: text = "\"\(Self.vocabulary.randomElement(using: &g)!) \(Self.vocabulary.randomElement(using: &g)!)\""
                case 2: text += " hound"
                default: break
                }
                let params = Self.parameters(&g, distinct: variant == 1)
                let a = try search(index, text, params)
                let b = try search(fresh, text, params)
                #expect(
                    Self.summary(a) == Self.summary(b), "seed \(seed) step \(step) segments \(index.segmentCount) query '\(text)' \(params)"
                )
                let attribute = variant == 0 ? "brand" : "category"
                let query = SearchQuery(text: text, parameters: try SearchParameters.decode(json(params).objectValue!))
                let prefix = ["", "", "b", "g", "m"].randomElement(using: &g)!
                let va = try index.searchForFacetValues(attribute: attribute, prefix: prefix, query: query, maxValues: 3)
                let vb = try fresh.searchForFacetValues(attribute: attribute, prefix: prefix, query: query, maxValues: 3)
                #expect(
                    va.map { "\($0.value)=\($0.count)" } == vb.map { "\($0.value)=\($0.count)" }, "facet values, seed \(seed) step \(step)")
            }
            let probe = model.docs.keys.sorted().prefix(3) + ["missing"]
            #expect(index.storedDocuments(Array(probe)).map { $0?["title"] } == fresh.storedDocuments(Array(probe)).map { $0?["title"] })
        }
        #expect(index.segmentCount >= 1)
        _ = merges
    }

    /// A merge of the two smallest segments, when the policy asks for none.
    static func anyMerge(_ index: EmbeddedIndex) -> SegmentMerge? {
        guard index.segments.count >= 2 else { return nil }
        let two = index.segments.indices.sorted { index.segments[$0].liveCount < index.segments[$1].liveCount }.prefix(2)
        return SegmentMerge(sources: two.map { index.segments[$0] })
    }

    /// With a cap on merged segments, no merge makes a segment past it (a full segment is only
    /// rebuilt alone, once a third of it is deleted), and the index still answers as a rebuild.
    @Test func mergesNeverMakeASegmentPastTheCap() throws {
        var g = Generator(state: 4242)
        let settings = try IndexSettings.decode(json(Self.settingsVariants[0]).objectValue!, path: "settings")
        var model = Model()
        var index = try EmbeddedIndex(name: "t", settings: settings, documents: [], positions: [])
        let cap = 300
        var largestMerge = 0
        for batch in 0..<40 {
            // Now and then, many deletions (of earlier batches): full segments get rebuilt alone.
            var deleting: [String] = []
            if batch % 10 == 9 {
                deleting = model.docs.keys.sorted().filter { _ in Int.random(in: 0..<2, using: &g) == 0 }
                for id in deleting { model.docs[id] = nil }
            }
            var adding: [(position: Int64, document: JSONObject)] = []
            for i in 0..<50 {
                let d = Self.document("b\(batch)_\(i)", &g)
                adding.append((model.put(d), d))
            }
            index = try index.updated(adding: adding, deleting: deleting)
            while let merge = index.plannedMerge(.small, maxDocuments: cap) ?? index.plannedMerge(.base, settling: true, maxDocuments: cap)
            {
                largestMerge = max(largestMerge, merge.documentCount)
                #expect(merge.documentCount <= cap, "batch \(batch): a merge of \(merge.documentCount)")
                index = index.completing(try index.build(merge))
            }
        }
        #expect(largestMerge > cap / 2, "merges came near the cap")
        #expect(index.segmentCount >= model.docs.count / cap, "the index past the cap is several segments")
        let fresh = try EmbeddedIndex(
            name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
        for text in ["", "blue", "re", "tiger red"] {
            let params = "{\"hitsPerPage\": 30, \"facets\": [\"category\", \"price\"]}"
            let (a, b) = (Self.summary(try search(index, text, params)), Self.summary(try search(fresh, text, params)))
            #expect(a == b, "'\(text)' \(index.segmentCount) segments:\n\(a)\nrebuilt:\n\(b)")
        }
    }

    @Test func anIndexWithoutSearchableAttributesIsRebuiltNotUpdated() throws {
        let index = try makeIndex("{}", #"{"objectID": "a", "title": "x"}"#)
        #expect(!index.updatesInPlace)
    }

    @Test func theMergePolicyKeepsABaseAndMergesSmallSegmentsByTiers() throws {
        let settings = try IndexSettings.decode(json(#"{"searchableAttributes": ["title"]}"#).objectValue!, path: "s")
        var g = Generator(state: 5)
        let base = (0..<800).map { Self.document("b\($0)", &g) }
        var index = try EmbeddedIndex(name: "t", settings: settings, documents: base, positions: (0..<800).map(Int64.init))
        index = try index.updated(adding: [(1000, Self.document("s0", &g))], deleting: [])
        #expect(index.plannedMerge(.small) == nil && index.plannedMerge(.base) == nil)
        index = try index.updated(adding: [(1001, Self.document("s1", &g))], deleting: [])
        // Two segments under the floor: the small lane merges them, not the base.
        let small = try #require(index.plannedMerge(.small))
        #expect(small.documentCount == 2)
        #expect(index.plannedMerge(.base) == nil)
        // While that merge runs, the base lane does not take its segments.
        for i in 2..<112 { index = try index.updated(adding: [(Int64(1000 + i), Self.document("s\(i)", &g))], deleting: []) }
        let big = try #require(index.plannedMerge(.base, besides: small), "the others hold an eighth of the base")
        #expect(big.documentCount == 800 + 110)
        index = index.completing(try index.build(small))
        index = index.completing(try index.build(big))
        #expect(index.segmentCount == 2 && index.documentCount == 912)
        #expect(index.plannedMerge(.base) == nil && index.plannedMerge(.small) == nil)
        // Above the floor, a tier merges once it holds eight.
        #expect(MergePolicy.tier(255) == 0 && MergePolicy.tier(256) == 1 && MergePolicy.tier(2047) == 1 && MergePolicy.tier(2048) == 2)
        // A base a third deleted is rebuilt (with the others).
        index = try index.updated(adding: [], deleting: (0..<303).map { "b\($0)" })
        #expect(index.plannedMerge(.base) == nil)
        index = try index.updated(adding: [], deleting: ["b303"])
        #expect(try #require(index.plannedMerge(.base)).documentCount == 912 - 304)
    }

    @Test func anIndexAtRestSettlesIntoOneSegmentOnceItsChangesAreASixtyFourthOfTheBase() throws {
        let settings = try IndexSettings.decode(json(#"{"searchableAttributes": ["title"]}"#).objectValue!, path: "s")
        var g = Generator(state: 9)
        let base = (0..<640).map { Self.document("b\($0)", &g) }
        var index = try EmbeddedIndex(name: "t", settings: settings, documents: base, positions: (0..<640).map(Int64.init))
        // Nine new documents: under a sixty-fourth of the base, so even at rest it stays.
        for i in 0..<9 { index = try index.updated(adding: [(Int64(1000 + i), Self.document("s\(i)", &g))], deleting: []) }
        while let m = index.plannedMerge(.small) { index = index.completing(try index.build(m)) }
        #expect(index.segmentCount == 2)
        #expect(index.plannedMerge(.base, settling: true) == nil)
        // The tenth: the base lane folds everything at rest, not while writes come, and not
        // while a small merge holds some of the segments (it waits for that one to end).
        index = try index.updated(adding: [(1009, Self.document("s9", &g))], deleting: [])
        #expect(index.plannedMerge(.base) == nil)
        let small = try #require(index.plannedMerge(.small))
        #expect(index.plannedMerge(.base, besides: small, settling: true) == nil)
        index = index.completing(try index.build(small))
        let fold = try #require(index.plannedMerge(.base, settling: true))
        #expect(fold.documentCount == 650)
        index = index.completing(try index.build(fold))
        #expect(index.segmentCount == 1 && index.documentCount == 650)
        #expect(index.plannedMerge(.base, settling: true) == nil, "an index of one segment and no deletions is settled")
        // Deletions in a lone segment count too: ten of them fold it at rest.
        index = try index.updated(adding: [], deleting: (0..<10).map { "b\($0)" })
        #expect(index.plannedMerge(.base) == nil)
        let compacted = try #require(index.plannedMerge(.base, settling: true))
        index = index.completing(try index.build(compacted))
        #expect(index.segmentCount == 1 && index.documentCount == 640)
        #expect(index.segments[0].liveCount == index.segments[0].snapshot.documentCount)
    }

}
