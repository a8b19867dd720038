import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Saved segments: an index opened from archives of its segments, saved at some point and
/// stale since (documents changed, deleted, re-added, new ones), answers every random query
/// exactly as an index built whole from the documents as they are now.
@Suite struct SegmentArchiveTests {
    typealias Generator = ReferencePropertyTests.Generator
    typealias Model = IncrementalUpdateTests.Model

    /// The segment built with the most documents.
    static func largest(_ index: EmbeddedIndex) -> SegmentID {
        index.segmentSizes.max { $0.builtDocuments < $1.builtDocuments }!.id
    }

    static func hash(_ d: JSONObject) -> UInt64 { ContentHash.of(JSONWriter.bytes(.object(d))) }

    /// The model's documents as a store gives them.
    static func stored(_ model: Model) -> StoredDocuments {
        let ordered = model.ordered
        return StoredDocuments(
            documents: ordered.map(\.document), objectIDs: ordered.map { $0.document["objectID"]!.stringValue! },
            positions: ordered.map(\.position), hashes: ordered.map { hash($0.document) })
    }

    /// A random change to the model: upserts, a partial update, deletes, or a delete and re-add.
    static func change(_ model: inout Model, step: Int, _ g: inout Generator) -> (
        adding: [(position: Int64, document: JSONObject)], deleting: [String]
    ) {
        let existing = model.docs.keys.sorted()
        var adding: [String: (position: Int64, document: JSONObject)] = [:]
        var deleting: [String] = []
        switch Int.random(in: 0..<100, using: &g) {
        case 0..<50:
            for _ in 0..<Int.random(in: 1...4, using: &g) {
                let id =
                    Bool.random(using: &g) || existing.isEmpty
                    ? "n\(step)_\(Int.random(in: 0...3, using: &g))" : existing.randomElement(using: &g)!
                let d = IncrementalUpdateTests.document(id, &g)
                adding[id] = (model.put(d), d)
            }
        case 50..<65:
            guard let id = existing.randomElement(using: &g) else { break }
            var d = model.docs[id]!.document
            d["price"] = .number(Double(Int.random(in: 1...40, using: &g)))
            adding[id] = (model.put(d), d)
        case 65..<85:
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                guard let id = existing.randomElement(using: &g) else { break }
                deleting.append(id)
                model.docs[id] = nil
            }
        default:
            // Deleted, then stored again as it was: a new position, so a saved segment that
            // holds it at the old one must not serve it.
            guard let id = existing.randomElement(using: &g) else { break }
            let d = model.docs[id]!.document
            model.docs[id] = nil
            adding[id] = (model.put(d), d)
        }
        return (Array(adding.values), deleting.filter { adding[$0] == nil })
    }

    @Test(arguments: 0..<12)
    func anIndexOpenedFromStaleArchivesAnswersAsARebuild(seed: Int) throws {
        var g = Generator(state: UInt64(seed) &* 104_729 &+ 5)
        let variant = seed % IncrementalUpdateTests.settingsVariants.count
        let settings = try IndexSettings.decode(json(IncrementalUpdateTests.settingsVariants[variant]).objectValue!, path: "settings")
        var model = Model()
        var initial: [JSONObject] = []
        for i in 0..<Int.random(in: 1...40, using: &g) { initial.append(IncrementalUpdateTests.document("d\(i)", &g)) }
        let positions = initial.map { model.put($0) }
        var index = try EmbeddedIndex(name: "t", settings: settings, documents: initial, positions: positions)
        var archives: [ColumnArchive] = []
        for step in 0..<24 {
            let (adding, deleting) = Self.change(&model, step: step, &g)
            index = try index.updated(adding: adding, deleting: deleting)
            if let merge = index.plannedMerge(.base) ?? index.plannedMerge(.small) { index = index.completing(try index.build(merge)) }
            if Int.random(in: 0..<5, using: &g) == 0 {
                // Saved now, newest first: the base, sometimes every segment.
                let ids = Bool.random(using: &g) ? index.segmentIDs : [Self.largest(index)]
                archives = ids.compactMap { index.archive(of: $0, meta: ["step": .number(Double(step))], hash: Self.hash) } + archives
            }
            guard step % 4 == 3 else { continue }
            let opened = try EmbeddedIndex.opening(name: "t", settings: settings, archives: archives, stored: Self.stored(model))
            #expect(opened.unusable.isEmpty)
            #expect(opened.servedByArchive.reduce(0, +) + opened.built.count == model.docs.count)
            let fresh = try EmbeddedIndex(
                name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
            #expect(opened.index.documentCount == fresh.documentCount)
            for _ in 0..<8 {
                let text = ReferencePropertyTests.query(&g)
                let params = IncrementalUpdateTests.parameters(&g, distinct: variant == 1)
                let a = try search(opened.index, text, params)
                let b = try search(fresh, text, params)
                #expect(
                    IncrementalUpdateTests.summary(a) == IncrementalUpdateTests.summary(b),
                    "seed \(seed) step \(step) archives \(archives.count) query '\(text)' \(params)")
            }
            // The opened index takes updates and merges as any other.
            let (more, gone) = Self.change(&model, step: 100 + step, &g)
            var next = try opened.index.updated(adding: more, deleting: gone)
            if let merge = next.plannedMerge(.base, settling: true) { next = next.completing(try next.build(merge)) }
            let rebuilt = try EmbeddedIndex(
                name: "t", settings: settings, documents: model.ordered.map(\.document), positions: model.ordered.map(\.position))
            let a = try search(next, "", "{\"hitsPerPage\": 50, \"facets\": [\"category\", \"price\"]}")
            let b = try search(rebuilt, "", "{\"hitsPerPage\": 50, \"facets\": [\"category\", \"price\"]}")
            #expect(IncrementalUpdateTests.summary(a) == IncrementalUpdateTests.summary(b), "after an update, seed \(seed) step \(step)")
            index = next
        }
    }

    @Test func anArchiveOfAnUnchangedIndexServesEveryDocumentAndBuildsNone() throws {
        var g = Generator(state: 99)
        let settings = try IndexSettings.decode(json(IncrementalUpdateTests.settingsVariants[0]).objectValue!, path: "settings")
        var model = Model()
        let docs = (0..<200).map { IncrementalUpdateTests.document("d\($0)", &g) }
        let positions = docs.map { model.put($0) }
        let index = try EmbeddedIndex(name: "t", settings: settings, documents: docs, positions: positions)
        let archive = try #require(index.archive(of: Self.largest(index), meta: ["k": "v"], hash: Self.hash))
        #expect(EmbeddedIndex.archiveMeta(archive) == ["k": "v"])
        let opened = try EmbeddedIndex.opening(name: "t", settings: settings, archives: [archive], stored: Self.stored(model))
        #expect(opened.servedByArchive == [200])
        #expect(opened.built.isEmpty)
        #expect(opened.index.segmentCount == 1)
        #expect(opened.index.isWhole)
        let a = try search(opened.index, "blue", "{\"facets\": [\"category\"], \"getRankingInfo\": true}")
        let b = try search(index, "blue", "{\"facets\": [\"category\"], \"getRankingInfo\": true}")
        #expect(IncrementalUpdateTests.summary(a) == IncrementalUpdateTests.summary(b))
    }

    @Test func anArchiveThatDisagreesWithItselfOrItsSettingsIsNotUsed() throws {
        var g = Generator(state: 7)
        let settings = try IndexSettings.decode(json(IncrementalUpdateTests.settingsVariants[0]).objectValue!, path: "settings")
        var model = Model()
        let docs = (0..<30).map { IncrementalUpdateTests.document("d\($0)", &g) }
        let positions = docs.map { model.put($0) }
        let index = try EmbeddedIndex(name: "t", settings: settings, documents: docs, positions: positions)
        let archive = try #require(index.archive(of: Self.largest(index), meta: [:], hash: Self.hash))
        var short = archive
        short.columns.removeLast()
        var wrongKind = archive
        wrongKind.columns[5] = .f64([1])
        var outOfRange = archive
        // The postings' documents (column 8) pointing past the last document.
        if case .u32(var docs) = outOfRange.columns[8] {
            docs[0] = 1_000_000
            outOfRange.columns[8] = .u32(docs)
        }
        // Term ranges that go back (column 7, the postings' term starts), and a position in an
        // attribute slot the settings do not have (column 11): both would trap a query.
        var backwards = archive
        if case .u32(var starts) = backwards.columns[7], starts.count > 3 {
            starts.swapAt(1, 2)
            if starts[1] == starts[2] { starts[1] += 1 }
            backwards.columns[7] = .u32(starts)
        }
        var badSlot = archive
        if case .u32(var positions) = badSlot.columns[11] {
            positions[0] |= 7 << 22
            badSlot.columns[11] = .u32(positions)
        }
        let other = try IndexSettings.decode(json(IncrementalUpdateTests.settingsVariants[1]).objectValue!, path: "settings")
        for (bad, s) in [
            (short, settings), (wrongKind, settings), (outOfRange, settings), (backwards, settings), (badSlot, settings), (archive, other),
        ] {
            let opened = try EmbeddedIndex.opening(name: "t", settings: s, archives: [bad], stored: Self.stored(model))
            #expect(opened.unusable[0] != nil)
            #expect(opened.servedByArchive == [0])
            #expect(opened.built.count == 30)
            #expect(opened.index.documentCount == 30)
        }
    }
}
