import Testing
import FederatedSearchCore
@testable import FederatedSearchProtocol

extension Frame {
    /// The id, index and results of a `results` frame.
    fileprivate var resultsParts: (id: String?, index: String, results: SearchResults)? {
        if case .results(let id, let index, let r) = self { return (id, index, r) }
        return nil
    }

    /// The merged list of a `merged` frame.
    fileprivate var mergedResults: MergedResults? {
        if case .merged(_, let m) = self { return m }
        return nil
    }
}

/// Hits decoded from a frame keep their attributes and highlights as runs of the line, and
/// read, compare and write again exactly as hits decoded through a tree.
struct HitDecoderTests {
    /// The frame decoded the way it was before the walking decoder: parsed whole, then read.
    static func treeResults(_ line: String) throws -> SearchResults {
        let o = try #require(try JSONParser.parse(line).objectValue)
        return try SearchResults(json: try #require(o["results"]), path: "results")
    }

    static func walkedResults(_ line: String) throws -> SearchResults {
        try #require(try FrameDecoder.decode(Array(line.utf8)).resultsParts, "not a results frame").results
    }

    @Test func aWrittenFrameDecodesToRunsOfItsLineAndWritesBackTheSame() throws {
        var line = FrameTests.frames[0].line()
        line.removeLast()
        let (id, index, results) = try #require(try FrameDecoder.decode(line).resultsParts, "not a results frame")
        let hit = try #require(results.hits.first)
        #expect(hit.encodedAttributes.map(Array.init) == Array(#","title":"Star Wars","year":1977"#.utf8))
        #expect(hit.encodedHighlightResult != nil)
        #expect(hit.attribute("title") == "Star Wars")
        #expect(hit.attribute("missing") == nil)
        #expect(hit.highlightResult(for: "title")?.objectValue?["value"] == "<em>Star</em> Wars")
        #expect(hit.highlightResult(for: "year") == nil)
        #expect(hit == FrameTests.hit)
        // Forwarded (the remote backend re-sends what it decoded): the same bytes.
        #expect(FrameWriter.results(id: id, index: index, results: results).line.bytes == FrameTests.frames[0].line())
    }

    /// Members in any order, with whitespace, escaped keys, duplicates, an `objectID` last and
    /// underscore members among the attributes: the same hit as a tree decode.
    @Test(arguments: [
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","a":1,"_rankingScore":0.5,"b":[true,{"c":"é"}]}],"nbHits":1}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"title":"x","objectID":"2","year":1,"_highlightResult":{"title":{"value":"<em>x</em>"}}}]}}"#,
        #"{ "id" : "q" , "type" : "results" , "index" : "m" , "results" : { "nbHits" : 7 , "hits" : [ { "objectID" : "3" , "t" : "a" , "t" : "b" , "_x" : 1 } ] } }"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"\u006fbjectID":"4","\u005fhighlightResult":{},"k\u00e9":"v","_rankingScore":1}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"5"}],"facets":{"g":{"Drama":3}},"facets_stats":{"y":{"min":1,"max":2,"avg":1.5,"sum":3}}}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"6","_highlightResult":"not an object","_snippetResult":{"s":{"value":"…"}},"_rankingInfo":{"nbTypos":0}}],"page":2}}"#,
    ])
    func anyLayoutDecodesLikeATree(line: String) throws {
        let walked = try Self.walkedResults(line)
        let tree = try Self.treeResults(line)
        #expect(walked.json() == tree.json())
        for (w, t) in zip(walked.hits, tree.hits) {
            #expect(w == t)
            for key in t.attributes.keys { #expect(w.attribute(key) == t.attributes[key]) }
            for key in t.highlightResult?.keys ?? [] { #expect(w.highlightResult(for: key) == t.highlightResult?[key]) }
        }
    }

    /// A fault inside an attribute or a highlight, never built by the decoder, still fails
    /// the frame as a whole.
    @Test(arguments: [
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","a":"\x"}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","a":[1,]}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","_highlightResult":{"a":}}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":1}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"a":1}]}}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[7]}}"#,
        #"{"id":"q","type":"merged","hits":[{"objectID":"1","_index":"m","a":01}]}"#,
        #"{"id":"q","type":"results","index":"m","results":{"hits":[]}} x"#,
    ])
    func aFaultAnywhereFailsTheFrame(line: String) {
        #expect(throws: SearchError.self) { try FrameDecoder.decode(Array(line.utf8)) }
    }

    @Test func invalidUTF8InAnAttributeFailsTheFrame() {
        var line = Array(#"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","a":"__"}]}}"#.utf8)
        let i = line.firstIndex(of: UInt8(ascii: "_"))!
        line[i] = 0xC3
        line[i + 1] = 0x28
        #expect(throws: SearchError.self) { try FrameDecoder.decode(line) }
    }

    @Test func mergedHitsKeepTheirIndexRankAndScore() throws {
        let line =
            #"{"id":"q","type":"merged","hits":[{"objectID":"1","title":"A","_rankingScore":0.5,"_index":"movies","_federation":{"index":"movies","rank":3,"weightedScore":1.5}}],"nbHits":9,"strategy":"score"}"#
        let m = try #require(try FrameDecoder.decode(Array(line.utf8)).mergedResults, "not a merged frame")
        #expect(m.nbHits == 9)
        #expect(m.extra == ["strategy": "score"])
        let hit = try #require(m.hits.first)
        #expect(hit.index == "movies")
        #expect(hit.rank == 3)
        #expect(hit.weightedScore == 1.5)
        #expect(hit.hit.attribute("title") == "A")
        #expect(hit.hit.attributes.keys == ["title"])
    }

    /// `type` after `results`: decoded through the tree, to the same frame.
    @Test func typeAfterTheResultsStillDecodes() throws {
        let line = #"{"results":{"hits":[{"objectID":"1","a":1}],"nbHits":1},"index":"m","id":"q","type":"results"}"#
        let (id, index, r) = try #require(try FrameDecoder.decode(Array(line.utf8)).resultsParts, "not a results frame")
        #expect(id == "q")
        #expect(index == "m")
        #expect(r.hits.first?.attribute("a") == 1)
    }
}

/// A connection's decoder takes the merged list's hits from the request's results frames when
/// they repeat them byte for byte, and decodes any other in full: the frames equal those of
/// the stateless decoder either way.
struct AnswerDecoderTests {
    static func line(_ text: String) -> [UInt8] { Array(text.utf8) }

    static let results =
        #"{"id":"q","type":"results","index":"m","results":{"hits":[{"objectID":"1","title":"Star","_highlightResult":{"title":{"value":"<em>Star</em>"}},"_rankingScore":0.5},{"objectID":"2","n":12,"_rankingScore":0.25}],"nbHits":2}}"#

    @Test(arguments: [
        // The source's hits repeated, with the merged list's annotations: both taken.
        (
            2,
            #"{"id":"q","type":"merged","hits":[{"objectID":"1","title":"Star","_highlightResult":{"title":{"value":"<em>Star</em>"}},"_rankingScore":0.5,"_index":"m","_federation":{"indexName":"m","rank":0,"weightedScore":0.5}},{"objectID":"2","n":12,"_rankingScore":0.25,"_index":"m","_federation":{"rank":1}}],"nbHits":2}"#
        ),
        // A number that goes on past the known bytes, an attribute that differs, an extra
        // attribute after the annotations, and an unknown objectID: each decoded in full.
        (
            0,
            #"{"id":"q","type":"merged","hits":[{"objectID":"2","n":12,"_rankingScore":0.255,"_index":"m"},{"objectID":"1","title":"Stor","_rankingScore":0.5,"_index":"m"},{"objectID":"2","n":12,"_rankingScore":0.25,"_index":"m","extra":1},{"objectID":"3","_index":"m"}],"nbHits":4}"#
        ),
    ])
    func mergedHitsDecodeAsTheStatelessDecoderDoes(taken: Int, merged: String) throws {
        var decoder = AnswerDecoder()
        #expect(try decoder.decode(Self.line(Self.results)) == FrameDecoder.decode(Self.line(Self.results)))
        #expect(decoder.requestsRemembered == 1)
        let walked = try decoder.decode(Self.line(merged))
        #expect(decoder.mergedHitsTaken == taken)
        #expect(walked == (try FrameDecoder.decode(Self.line(merged))))
        let m = try #require(walked.mergedResults, "not a merged frame")
        let tree = try #require(try JSONParser.parse(merged).objectValue?["hits"]?.arrayValue)
        #expect(m.hits.count == tree.count)
        for (h, t) in zip(m.hits, tree) {
            #expect(h.index == "m")
            for e in t.objectValue ?? [:] where !e.key.hasPrefix("_") && e.key != "objectID" { #expect(h.hit.attribute(e.key) == e.value) }
        }
        _ = try decoder.decode(Self.line(#"{"id":"q","type":"done","status":"ok","sources":{},"ms":1}"#))
        #expect(decoder.requestsRemembered == 0)
    }

    /// A repeated hit whose annotations are malformed is an error, as in a full decode.
    @Test func aBadAnnotationAfterKnownBytesIsAnError() throws {
        var decoder = AnswerDecoder()
        _ = try decoder.decode(Self.line(Self.results))
        let bad = #"{"id":"q","type":"merged","hits":[{"objectID":"2","n":12,"_rankingScore":0.25,"_index":"m","_federation":{"rank":}}]}"#
        #expect(throws: SearchError.self) { try decoder.decode(Self.line(bad)) }
        #expect(throws: SearchError.self) { try FrameDecoder.decode(Self.line(bad)) }
    }

    /// Another request's hits are not taken for this one's.
    @Test func hitsAreRememberedPerRequest() throws {
        var decoder = AnswerDecoder()
        _ = try decoder.decode(Self.line(Self.results))
        let other = #"{"id":"r","type":"merged","hits":[{"objectID":"2","n":12,"_rankingScore":0.25,"_index":"m"}],"nbHits":1}"#
        #expect(try decoder.decode(Self.line(other)) == (try FrameDecoder.decode(Self.line(other))))
        #expect(decoder.mergedHitsTaken == 0)
    }
}
