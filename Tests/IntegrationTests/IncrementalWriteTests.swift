import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// Writes to a durable index with `searchableAttributes` update it in place (a segment per
/// write group, merged in the background), and it answers exactly as the index rebuilt whole
/// from the store at the next start; a kill -9 during a merge loses nothing acknowledged.
@Suite(.serialized)
struct IncrementalWriteTests {
    static let genres = ["drama", "comedy", "horror", "documentary"]
    static let words = ["star", "stars", "start", "wars", "war", "trek", "galaxy", "gala", "quest", "quiet", "river", "rover"]

    /// `settleAfterMs` 0 by default: the tests of search over several segments keep them.
    /// Without `searchableAttributes` when `discovered`: the index searches the text
    /// attributes it finds.
    func config(dataDir: String, settleAfterMs: Int = 0, discovered: Bool = false) -> JSONObject {
        var films: JSONObject = [
            "data": "films.ndjson", "searchableAttributes": ["title", "unordered(plot)"],
            "attributesForFaceting": ["genre", "year"], "customRanking": ["desc(votes)"],
        ]
        if discovered { films["searchableAttributes"] = nil }
        return [
            "dataDir": .string(dataDir), "settleAfterMs": .number(Double(settleAfterMs)), "searchables": ["films": .object(films)],
        ]
    }

    static func film(_ i: Int, _ rng: inout SystemRandomNumberGenerator, id: String? = nil) -> JSONObject {
        let title = (0..<Int.random(in: 1...3, using: &rng)).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
        let plot = (0..<6).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ")
        return [
            "objectID": .string(id ?? "f\(i)"), "title": .string(title.capitalized), "plot": .string(plot),
            "genre": .string(genres.randomElement(using: &rng)!), "year": .number(Double(Int.random(in: 1990...2020, using: &rng))),
            "votes": .number(Double(Int.random(in: 0...50, using: &rng))),
        ]
    }

    static let queries = ["", "star", "sta", "wars star", "galxy", "quest river", "rov", "trek gala"]

    /// Some of every kind of write onto a base of 3,000 films.
    func writeSome(_ c: SocketConnection, _ rng: inout SystemRandomNumberGenerator) throws {
        for i in 0..<60 {
            switch i % 5 {
            case 0, 1:  // a new film, or a film replaced
                let doc = Self.film(i % 2 == 0 ? 1000 + i : Int.random(in: 0..<3000, using: &rng), &rng)
                try written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(doc)]])
            case 2:
                try written(
                    c,
                    [
                        "id": "p", "op": "partialUpdateDocuments", "index": "films",
                        "documents": [
                            [
                                "objectID": .string("f\(Int.random(in: 0..<3000, using: &rng))"), "votes": .number(Double(i)),
                                "title": "Star Rover",
                            ]
                        ],
                    ])
            case 3:
                try written(
                    c,
                    [
                        "id": "d", "op": "deleteDocuments", "index": "films",
                        "objectIDs": [.string("f\(Int.random(in: 0..<3000, using: &rng))")],
                    ])
            default:
                try written(
                    c,
                    [
                        "id": "b", "op": "deleteBy", "index": "films",
                        "params": ["filters": .string("genre:horror AND year = \(Int.random(in: 1990...2020, using: &rng))")],
                    ])
            }
        }
    }

    /// Stops the daemon cleanly and starts it again on the same store (the index is then
    /// rebuilt whole from it).
    func restart(_ d: inout DaemonProcess, dataDir: String, initial: String) throws {
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": initial])
    }

    /// 3,000 films, a line each.
    static func initialFilms(_ rng: inout SystemRandomNumberGenerator) -> String {
        (0..<3000).map { JSONWriter.string(.object(film($0, &rng))) }.joined(separator: "\n")
    }

    /// Every query's answer as text: hits in order, counts, facets (timings left out).
    func answers(_ c: SocketConnection) throws -> [String] {
        try Self.queries.map { q in
            let frames = try c.roundTrip([
                "id": "q", "query": .string(q), "indices": ["films"],
                "params": ["hitsPerPage": 20, "facets": ["genre", "year"], "getRankingInfo": true],
            ])
            guard case .results(_, _, let r)? = frames.first else { return "no results: \(frames)" }
            let highlights = r.hits.map { $0.encodedHighlightResult.map { String(decoding: $0, as: UTF8.self) } ?? "" }
            var out = "\(q): \(r.nbHits) \(r.hits.map { "\($0.objectID)@\($0.rankingScore)" }) \(highlights)"
            for f in r.facets { out += " \(f.attribute)=\(f.values.map { "\($0.value):\($0.count)" })" }
            for s in r.facetsStats { out += " stats \(s.attribute) \(s.min) \(s.max)" }
            return out
        }
    }

    func written(_ c: SocketConnection, _ request: JSONValue) throws {
        let reply = try c.roundTrip(request)
        try #require(reply.first?.infoPayload("written") != nil, "not written: \(reply)")
    }

    @Test func anIndexUpdatedInPlaceAnswersAsTheRebuildAtRestart() throws {
        var rng = SystemRandomNumberGenerator()
        // A base of 3,000: the 60 writes below stay in small segments beside it (the base is
        // folded again only once they reach an eighth of it), so the answers compared come
        // from a search over several segments, with deletions in the base.
        let initial = Self.initialFilms(&rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": initial])
        var c = try d.connect()
        try writeSome(c, &rng)
        let stats = try pollStats(c) { p in
            (p["writes"]?.objectValue?["films"]?.objectValue?["merges"]?.intValue ?? 0) > 0
                && p["writes"]?.objectValue?["films"]?.objectValue?["merging"] == .bool(false)
        }
        let films = stats?["writes"]?.objectValue?["films"]?.objectValue
        #expect((films?["merges"]?.intValue ?? 0) > 0, "single writes were merged in the background: \(String(describing: films))")
        #expect((films?["segments"]?.intValue ?? 0) >= 2, "the answers below come from several segments")
        let before = try answers(c)
        #expect(before[1].contains("star: 0") == false, "the queries match something: \(before[1])")
        // Restart: the index is rebuilt whole from the store.
        let files = d.directory
        try restart(&d, dataDir: dataDir, initial: initial)
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: files)
        }
        c = try d.connect()
        let after = try answers(c)
        for (a, b) in zip(before, after) { #expect(a == b) }
        let restarted = try pollStats(c) { _ in true }?["writes"]?.objectValue?["films"]?.objectValue
        #expect(restarted?["segments"] == 1, "a rebuilt index is one segment")
    }

    /// The index's segment count and the hits of `query`.
    func segmentsAndHits(_ c: SocketConnection, _ query: String) throws -> (segments: Int?, hits: [String]) {
        let films = try pollStats(c) { _ in true }?["writes"]?.objectValue?["films"]?.objectValue
        let frames = try c.roundTrip(["id": "q", "query": .string(query), "indices": ["films"]])
        return (films?["segments"]?.intValue, try #require(frames.first?.resultsValue, "no results: \(frames)").hits.map(\.objectID))
    }

    /// An index without `searchableAttributes` keeps the text attributes it has found, in the
    /// order found: a write of known attributes updates it in place (a segment more, no
    /// rebuild); one that brings a new attribute rebuilds it once, and the attribute stays
    /// searchable, ranked after the others, after its documents are gone and after a restart.
    @Test func anIndexWithoutSearchableAttributesTakesWritesInPlaceAndKeepsTheAttributesItFound() throws {
        var rng = SystemRandomNumberGenerator()
        let initial = Self.initialFilms(&rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try DaemonProcess(config: config(dataDir: dataDir, discovered: true), files: ["films.ndjson": initial])
        let files = d.directory
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: files)
        }
        var c = try d.connect()
        #expect(try segmentsAndHits(c, "zebra").segments == 1)
        // Known attributes only: in place.
        let known: JSONObject = ["objectID": "k1", "title": "Zebra Crossing", "plot": "a zebra", "votes": 3]
        try written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(known)]])
        var now = try segmentsAndHits(c, "zebra")
        #expect(now.segments == 2, "a write of known attributes adds a segment: the index was not rebuilt")
        #expect(now.hits == ["k1"])
        // A new text attribute: found, and searchable at once (the index rebuilt with it).
        let tagged: JSONObject = ["objectID": "t1", "title": "Plain", "tagline": "okapi herds", "votes": 1]
        try written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(tagged)]])
        now = try segmentsAndHits(c, "okapi")
        #expect(now.hits == ["t1"])
        #expect(now.segments == 1, "a new attribute rebuilds the index once")
        // Its only document goes; the attribute stays known, through a restart.
        try written(c, ["id": "d", "op": "deleteDocuments", "index": "films", "objectIDs": ["t1"]])
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try DaemonProcess(config: config(dataDir: dataDir, discovered: true), files: ["films.ndjson": initial])
        c = try d.connect()
        let listed = try c.roundTrip(["id": "i", "op": "indices"]).first?.infoPayload("indices")
        let films = listed?["indices"]?.arrayValue?.first?.objectValue
        #expect(
            films?["searchableAttributes"] == ["title", "plot", "genre", "tagline"],
            "the attributes in the order found: \(String(describing: films))")
        let again: JSONObject = ["objectID": "t2", "title": "Other", "tagline": "yak", "votes": 1]
        try written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(again)]])
        now = try segmentsAndHits(c, "yak")
        #expect(now.hits == ["t2"])
        #expect(now.segments == 2, "an attribute found before is known: the write is in place")
    }

    @Test func anIndexAtRestSettlesIntoOneSegmentThatAnswersAsTheRebuildAtRestart() throws {
        var rng = SystemRandomNumberGenerator()
        let initial = Self.initialFilms(&rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try DaemonProcess(config: config(dataDir: dataDir, settleAfterMs: 300), files: ["films.ndjson": initial])
        var c = try d.connect()
        try writeSome(c, &rng)
        // The writes leave segments beside the base (they are far under an eighth of it);
        // once they stop, the index is folded into one.
        let stats = try pollStats(c, seconds: 20) { p in
            let films = p["writes"]?.objectValue?["films"]?.objectValue
            return films?["segments"] == 1 && films?["merging"] == .bool(false)
        }
        let films = stats?["writes"]?.objectValue?["films"]?.objectValue
        #expect(films?["segments"] == 1, "the index at rest is one segment: \(String(describing: films))")
        #expect((films?["merges"]?.intValue ?? 0) > 0)
        let settled = try answers(c)
        let files = d.directory
        try restart(&d, dataDir: dataDir, initial: initial)
        defer {
            d.stop()
            try? FileManager.default.removeItem(at: files)
        }
        c = try d.connect()
        let rebuilt = try answers(c)
        for (a, b) in zip(settled, rebuilt) { #expect(a == b) }
    }

    @Test func aKillDuringAMergeLosesNothingAcknowledged() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": ""])
        let c = try d.connect()
        var acknowledged = 0
        var sawMerging = false
        // Batches of 500 make segments of 500, which the merge lanes keep folding (into a new
        // base while the base is small, by tiers of eight beside it later).
        for b in 0..<64 {
            let docs = (0..<500).map { JSONValue.object(Self.film(b * 500 + $0, &rng)) }
            try written(c, ["id": "w", "op": "addDocuments", "index": "films", "documents": .array(docs)])
            acknowledged += 500
            let films = try pollStats(c) { _ in true }?["writes"]?.objectValue?["films"]?.objectValue
            if films?["merging"] == .bool(true) {
                sawMerging = true
                break
            }
        }
        kill(d.process.processIdentifier, SIGKILL)
        d.process.waitUntilExit()
        #expect(sawMerging, "the kill came while a merge was running")
        let again = try DaemonProcess(config: config(dataDir: dataDir), files: ["films.ndjson": ""])
        defer {
            again.stop()
            try? FileManager.default.removeItem(at: d.directory)
        }
        let c2 = try again.connect()
        let all = try c2.roundTrip(["id": "a", "query": "", "indices": ["films"], "params": ["hitsPerPage": 0]])
        let r = try #require(all.first?.resultsValue, "\(all)")
        #expect(r.nbHits == acknowledged)
    }
}
