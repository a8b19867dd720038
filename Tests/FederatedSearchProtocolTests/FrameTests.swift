import Testing
import FederatedSearchCore
@testable import FederatedSearchProtocol

/// Frames encode to one JSON line with `id` and `type` first, and decode back to equal frames.
struct FrameTests {
    static let hit = Hit(
        objectID: "1", attributes: ["title": "Star Wars", "year": 1977],
        highlightResult: ["title": ["value": "<em>Star</em> Wars", "matchLevel": "partial"]], rankingScore: 0.75)

    static let frames: [Frame] = [
        .results(
            id: "q", index: "movies",
            results: SearchResults(
                hits: [hit], nbHits: 1, page: 0, nbPages: 1, hitsPerPage: 10,
                facets: [FacetCounts(attribute: "genres", values: [("Drama", 3), ("Action", 1)])],
                facetsStats: [FacetStats(attribute: "year", min: 1977, max: 2019, avg: 1990.5, sum: 3981)],
                processingTimeMS: 0.5, query: "star", params: "query=star", index: "movies")),
        .error(id: "q", index: "products", error: SearchError(.timeout, "products: late")),
        .error(id: nil, index: nil, error: SearchError(.invalidJSON, "bad at byte 3")),
        .merged(id: "q", results: MergedResults(hits: [MergedHit(index: "movies", hit: hit)], nbHits: 1)),
        .done(
            id: "q", status: .partial,
            sources: [
                ("movies", SourceReport(status: .ok, ms: 0.412, nbHits: 1)),
                ("products", SourceReport(status: .timeout, ms: 200, errorCode: .timeout)),
            ], ms: 200.5),
        .pong(id: "p", protocolVersion: 1, version: "0.1.0"),
        .cancelAccepted(id: "c", target: "q"),
        .info(id: "i", type: "stats", payload: ["queriesServed": 3]),
    ]

    @Test(arguments: frames)
    func roundTrips(frame: Frame) throws {
        var line = frame.line()
        #expect(line.last == 0x0A)
        #expect(!line.dropLast().contains(0x0A))
        line.removeLast()
        #expect(try FrameDecoder.decode(line) == frame)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix("{\"id\":"))
    }

    @Test func mergedHitsCarryTheirIndex() throws {
        let json = Self.frames[3].json()
        let first = json.objectValue?["hits"]?.arrayValue?.first?.objectValue
        #expect(first?["_index"] == "movies")
        #expect(first?["objectID"] == "1")
        #expect(first?["_rankingScore"] == 0.75)
    }
}

/// The direct writer produces exactly the bytes of the generic encoder.
struct FrameWriterTests {
    @Test func resultsAndMergedMatchTheGenericEncoding() {
        guard case .results(let id, let index, let results) = FrameTests.frames[0] else { return }
        let (line, hits) = FrameWriter.results(id: id, index: index, results: results)
        #expect(line.bytes == FrameTests.frames[0].line())
        let merged = FrameWriter.merged(
            id: "q", hits: hits.map { FrameWriter.MergedHitBytes(index: "movies", rank: 0, weightedScore: 0.75, hit: $0) },
            nbHits: 1)
        #expect(merged.bytes == FrameTests.frames[3].line())
        // A weighted score other than the hit's own is written as a number of its own.
        let weighted = MergedResults(hits: [MergedHit(index: "movies", hit: FrameTests.hit, rank: 2, weightedScore: 1.125)], nbHits: 4)
        let direct = FrameWriter.merged(
            id: "q", hits: hits.map { FrameWriter.MergedHitBytes(index: "movies", rank: 2, weightedScore: 1.125, hit: $0) },
            nbHits: 4)
        #expect(direct.bytes == Frame.merged(id: "q", results: weighted).line())
        #expect(String(decoding: direct.bytes, as: UTF8.self).contains(#""rank":2,"weightedScore":1.125}"#))
    }

    /// The members after `hits` are written directly too: with no facets, several facets and
    /// stats, a non-exhaustive count, and text that needs escaping.
    @Test(arguments: [0, 1, 2])
    func resultsTailMatchesTheGenericEncoding(variant: Int) {
        var r = SearchResults(hits: [FrameTests.hit], nbHits: 1234, page: 3, nbPages: 124, hitsPerPage: 10)
        r.processingTimeMS = [0, 0.037, 12.5][variant]
        r.query = ["", "star \"wars\"", "été\n\\"][variant]
        r.params = "query=star%20wars&hitsPerPage=10"
        r.index = ["movies", "mo\"vies", "é"][variant]
        r.exhaustiveNbHits = variant != 1
        if variant > 0 {
            r.facets = [
                FacetCounts(attribute: "genres", values: [("Drama", 3), ("Sci \"Fi\"", 1)]),
                FacetCounts(attribute: "empty", values: []),
            ]
            r.facetsStats = [
                FacetStats(attribute: "year", min: 1977, max: 2019, avg: 1990.5, sum: 3981),
                FacetStats(attribute: "price", min: -0.5, max: 1e21, avg: 0.1, sum: 0),
            ]
        }
        let frame = Frame.results(id: variant == 2 ? nil : "q", index: "movies", results: r)
        guard case .results(let id, let index, let results) = frame else { return }
        #expect(FrameWriter.results(id: id, index: index, results: results).line.bytes == frame.line())
    }

    /// `done` frames are written directly; the text is the tree's, for every kind of
    /// source report and for durations that round to whole, fractional, tiny and huge values.
    @Test(arguments: [0, 0.0004, 0.0005, 0.001, 0.0106, 0.425, 1, 1.5, 12.3456789, 100.1, 999.9996, 123_456.789, 2e9 + 0.5, 1e300])
    func doneMatchesTheTreeEncoding(ms: Double) {
        let frame = Frame.done(
            id: ms == 0 ? nil : "q\"1", status: .partial,
            sources: [
                ("movies", SourceReport(status: .ok, ms: ms, nbHits: 12)),
                ("products", SourceReport(status: .timeout, ms: ms * 3, errorCode: .timeout)),
                ("flaky", SourceReport(status: .skipped, ms: 0, errorCode: .suspended, suspendedForMs: ms + 0.25)),
            ], ms: ms)
        var tree = JSONWriter.bytes(frame.json())
        tree.append(0x0A)
        #expect(frame.line() == tree)
    }

    /// A hit handed over as a stored document with its attributes and highlights already
    /// encoded (what the embedded engine produces) writes the same line as the same hit held
    /// as trees, and reads back the same.
    @Test func encodedHitsWriteAndReadLikeTrees() throws {
        let tree = FrameTests.hit
        var attributes: [UInt8] = []
        for e in tree.attributes.entries {
            attributes.append(UInt8(ascii: ","))
            JSONWriter.writeString(e.key, into: &attributes)
            attributes.append(UInt8(ascii: ":"))
            JSONWriter.write(e.value, into: &attributes)
        }
        let document: JSONObject = ["objectID": "1", "title": "Star Wars", "year": 1977]
        let encoded = Hit(
            objectID: "1", document: document, encodedAttributes: attributes,
            encodedHighlightResult: JSONWriter.bytes(.object(try #require(tree.highlightResult))), rankingScore: 0.75)
        #expect(encoded == tree)
        #expect(encoded.attributes == tree.attributes)
        #expect(encoded.attributes["objectID"] == nil)
        #expect(encoded.attribute("year") == 1977)
        #expect(encoded.attribute("objectID") == nil)
        #expect(FrameWriter.encode(encoded).open == FrameWriter.encode(tree).open)
        // Setting the attributes replaces the encoded form.
        var changed = encoded
        changed.attributes = ["title": "Alien"]
        #expect(changed.encodedAttributes == nil)
        #expect(changed.attribute("title") == "Alien")
    }

    /// A page past `sharedLineMinimum` is written in pieces that share the hits' encoded
    /// attributes and highlights: the same bytes as the generic encoder, in the results and in
    /// the merged frame, without a copy of the large parts.
    @Test func largePagesShareTheirHitsParts() throws {
        let body = String(repeating: "a long text with \"quotes\" and é ", count: 200)
        var hits: [Hit] = []
        var trees: [Hit] = []
        for i in 0..<60 {
            let document: JSONObject = ["objectID": .string("d\(i)"), "body": .string(body), "n": .number(Double(i))]
            var members: [UInt8] = []
            JSONWriter.writeMembers(of: document, except: "objectID", into: &members)
            let highlight: JSONObject = ["body": .object(["value": .string(body), "matchLevel": "none"])]
            let score = 1 / Double(i + 1)
            hits.append(
                Hit(
                    objectID: "d\(i)", document: document, encodedAttributes: members,
                    encodedHighlightResult: JSONWriter.bytes(.object(highlight)), rankingScore: score))
            var tree = Hit(objectID: "d\(i)", attributes: ["body": .string(body), "n": .number(Double(i))], rankingScore: score)
            tree.highlightResult = highlight
            trees.append(tree)
        }
        var results = SearchResults(hits: hits, nbHits: 60, page: 0, nbPages: 1, hitsPerPage: 60)
        results.index = "docs"
        var treeResults = results
        treeResults.hits = trees
        let (line, encoded) = FrameWriter.results(id: "big", index: "docs", results: results)
        #expect(line.count >= FrameWriter.sharedLineMinimum)
        #expect(!line.isWhole)
        #expect(line.bytes == Frame.results(id: "big", index: "docs", results: treeResults).line())
        #expect(line.count == line.bytes.count)
        // Each hit's attributes are one piece of the line: the hit's own bytes, not a copy.
        let attributes = try #require(hits[0].encodedAttributes)
        let shared = line.pieces.contains { piece in
            piece.count == attributes.count
                && piece.withUnsafeBufferPointer { a in
                    attributes.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress }
                }
        }
        #expect(shared)
        let merged = FrameWriter.merged(
            id: "big",
            hits: encoded.enumerated().map {
                FrameWriter.MergedHitBytes(index: "docs", rank: $0.offset, weightedScore: $0.element.rankingScore, hit: $0.element)
            }, nbHits: 60)
        #expect(!merged.isWhole)
        let mergedTree = MergedResults(
            hits: trees.enumerated().map {
                MergedHit(index: "docs", hit: $0.element, rank: $0.offset, weightedScore: $0.element.rankingScore)
            },
            nbHits: 60)
        #expect(merged.bytes == Frame.merged(id: "big", results: mergedTree).line())
    }
}
