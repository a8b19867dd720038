import FederatedSearchCore

/// Writes the large frames (results and merged) straight to bytes, without building a JSON
/// tree first, and encodes each hit once: the merged frame reuses the bytes of the hits the
/// results frames already encoded. Produces exactly the text of `Frame.line()`.
public enum FrameWriter {
    /// A hit's JSON without its closing brace, so `_index` can be appended for the merge: the
    /// pieces it was written in (slices of the results frame's line, or of the hit's own
    /// pieces when that line shares them: see ``OutgoingLine``), shared, not copied.
    public struct EncodedHit: Sendable {
        let pieces: [ArraySlice<UInt8>]
        /// The hit's `_rankingScore`, and its text (the merge's `weightedScore` is often the
        /// same number: its text is copied, not formatted again).
        public let rankingScore: Double
        let scoreText: ArraySlice<UInt8>
        /// The length of the hit's JSON without its closing brace.
        let count: Int

        /// The hit's JSON without its closing brace.
        public var open: [UInt8] { OutgoingLine(pieces: pieces).bytes }
    }

    /// Encodes one hit as `Hit.json()` would, minus the final `}`.
    public static func encode(_ hit: Hit) -> EncodedHit {
        var out = LineBuilder(shares: false, capacity: size(of: hit))
        let score = write(hit, into: &out)
        let text = out.text
        return EncodedHit(pieces: [text[...]], rankingScore: hit.rankingScore, scoreText: text[score], count: text.count)
    }

    /// About the size of a hit's JSON: its parts already encoded, and a little room for the
    /// rest (a hit from a remote backend has its parts as trees: the line grows as written,
    /// rather than holding a large guess for the whole request).
    private static func size(of hit: Hit) -> Int {
        96 + hit.objectID.utf8.count + (hit.encodedAttributes?.count ?? 64) + (hit.encodedHighlightResult?.count ?? 64)
    }

    /// From this estimated size on, a results or merged frame shares its hits' large parts
    /// instead of copying them into one array (see ``OutgoingLine``).
    public static let sharedLineMinimum = 256 * 1024

    /// Writes a hit's JSON minus the final `}`, its already-encoded parts given to `out` as
    /// slices; returns where its `_rankingScore` text is in `out.text`.
    private static func write(_ hit: Hit, into out: inout LineBuilder) -> Range<Int> {
        out.text.append(contentsOf: Pieces.objectID)
        JSONWriter.writeString(hit.objectID, into: &out.text)
        if let encoded = hit.encodedAttributes {
            out.append(encoded)
        } else {
            JSONWriter.writeMembers(of: hit.attributes, except: "objectID", into: &out.text)
        }
        if let encoded = hit.encodedHighlightResult {
            out.text.append(contentsOf: Pieces.highlightResult)
            out.append(encoded)
        } else if let h = hit.highlightResult {
            member("_highlightResult", .object(h), into: &out.text)
        }
        if let s = hit.snippetResult { member("_snippetResult", .object(s), into: &out.text) }
        if let r = hit.rankingInfo { member("_rankingInfo", .object(r), into: &out.text) }
        out.text.append(contentsOf: Pieces.rankingScore)
        let scoreStart = out.text.count
        JSONWriter.writeNumber(hit.rankingScore, into: &out.text)
        return scoreStart..<out.text.count
    }

    private static func member(_ key: String, _ value: JSONValue, into out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        JSONWriter.writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        JSONWriter.write(value, into: &out)
    }

    /// `{"id":ID,"type":` and the type (given as its JSON text).
    private static func header(id: String?, type: [UInt8], into out: inout [UInt8]) {
        out.append(contentsOf: Pieces.id)
        if let id { RequestID.write(id, into: &out) } else { out.append(contentsOf: Pieces.null) }
        out.append(contentsOf: Pieces.type)
        out.append(contentsOf: type)
    }

    /// Whether `line` is the `done` frame of request `id` (the last frame of a search).
    public static func isDone(_ line: some Collection<UInt8>, id: String?) -> Bool {
        var head: [UInt8] = []
        header(id: id, type: Pieces.doneType, into: &head)
        return line.starts(with: head)
    }

    /// The `results` frame line, and each hit's encoding for the merge.
    /// Each hit is written once, into the line; the merge takes it from there. A large page
    /// (from ``sharedLineMinimum``) shares its hits' encoded parts rather than copying them.
    public static func results(id: String?, index: String, results: SearchResults) -> (line: OutgoingLine, hits: [EncodedHit]) {
        let estimate = results.hits.reduce(512) { $0 + size(of: $1) + 2 }
        let shares = estimate >= sharedLineMinimum
        var out = LineBuilder(shares: shares, capacity: estimate)
        header(id: id, type: Pieces.resultsType, into: &out.text)
        out.text.append(contentsOf: Pieces.index)
        JSONWriter.writeString(index, into: &out.text)
        out.text.append(contentsOf: Pieces.resultsHits)
        var hits: [EncodedHit] = []
        hits.reserveCapacity(results.hits.count)
        var places: [(hit: Range<Int>, score: Range<Int>)] = []
        if !shares { places.reserveCapacity(results.hits.count) }
        for (i, hit) in results.hits.enumerated() {
            if i > 0 { out.text.append(UInt8(ascii: ",")) }
            if shares {
                // The hit in pieces of its own, which the line then shares (or copies, if small).
                var own = LineBuilder(shares: true, capacity: 256)
                let score = write(hit, into: &own)
                let pieces = own.finishPieces()
                // The score ends the hit's text, so its last piece.
                let scoreText = pieces[pieces.count - 1].suffix(score.count)
                let encoded = EncodedHit(
                    pieces: pieces, rankingScore: hit.rankingScore, scoreText: scoreText,
                    count: pieces.reduce(0) { $0 + $1.count })
                out.append(pieces: pieces)
                hits.append(encoded)
            } else {
                let start = out.text.count
                let score = write(hit, into: &out)
                places.append((start..<out.text.count, score))
            }
            out.text.append(UInt8(ascii: "}"))
        }
        out.text.append(UInt8(ascii: "]"))
        writeTail(of: results, into: &out.text)
        out.text.append(contentsOf: Pieces.closeResults)
        guard !shares else { return (out.finish(), hits) }
        let line = out.text
        hits = zip(results.hits, places).map {
            EncodedHit(pieces: [line[$1.hit]], rankingScore: $0.rankingScore, scoreText: line[$1.score], count: $1.hit.count)
        }
        return (OutgoingLine(line), hits)
    }

    /// The members of a response after `hits`, as `SearchResults.json()` has them (building
    /// that tree for them cost more than writing the hits).
    static func writeTail(of r: SearchResults, into out: inout [UInt8]) {
        out.append(contentsOf: Pieces.nbHitsMember)
        JSONWriter.writeNumber(Double(r.nbHits), into: &out)
        out.append(contentsOf: Pieces.page)
        JSONWriter.writeNumber(Double(r.page), into: &out)
        out.append(contentsOf: Pieces.nbPages)
        JSONWriter.writeNumber(Double(r.nbPages), into: &out)
        out.append(contentsOf: Pieces.hitsPerPage)
        JSONWriter.writeNumber(Double(r.hitsPerPage), into: &out)
        out.append(contentsOf: Pieces.facets)
        for (i, f) in r.facets.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(f.attribute, into: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: "{"))
            for (j, v) in f.values.enumerated() {
                if j > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(v.value, into: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.writeNumber(Double(v.count), into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: Pieces.facetsStats)
        for (i, st) in r.facetsStats.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(st.attribute, into: &out)
            out.append(contentsOf: Pieces.statsMin)
            JSONWriter.writeNumber(st.min, into: &out)
            out.append(contentsOf: Pieces.statsMax)
            JSONWriter.writeNumber(st.max, into: &out)
            out.append(contentsOf: Pieces.statsAvg)
            JSONWriter.writeNumber(st.avg, into: &out)
            out.append(contentsOf: Pieces.statsSum)
            JSONWriter.writeNumber(st.sum, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: r.exhaustiveNbHits ? Pieces.exhaustiveTrue : Pieces.exhaustiveFalse)
        JSONWriter.writeNumber(SearchResults.wholeMilliseconds(r.processingTimeMS), into: &out)
        out.append(contentsOf: Pieces.timings)
        JSONWriter.writeNumber(r.processingTimeMS, into: &out)
        out.append(contentsOf: Pieces.query)
        JSONWriter.writeString(r.query, into: &out)
        out.append(contentsOf: Pieces.params)
        JSONWriter.writeString(r.params, into: &out)
        out.append(contentsOf: Pieces.index)
        JSONWriter.writeString(r.index, into: &out)
    }

    /// A merged hit: its encoding and where it came from.
    public struct MergedHitBytes: Sendable {
        public let index: String
        public let rank: Int
        public let weightedScore: Double
        public let hit: EncodedHit

        public init(index: String, rank: Int, weightedScore: Double, hit: EncodedHit) {
            self.index = index
            self.rank = rank
            self.weightedScore = weightedScore
            self.hit = hit
        }
    }

    /// The `merged` frame line from already-encoded hits. Each hit gets `_index` and
    /// `_federation: {index, rank, weightedScore}`; `extra` members follow `nbHits`. A large
    /// one (from ``sharedLineMinimum``) shares the hits' pieces rather than copying them.
    public static func merged(id: String?, hits: [MergedHitBytes], nbHits: Int, extra: JSONObject = [:]) -> OutgoingLine {
        let estimate = hits.reduce(128) { $0 + $1.hit.count + 2 * $1.index.utf8.count + 80 }
        var out = LineBuilder(shares: estimate >= sharedLineMinimum, capacity: estimate)
        header(id: id, type: Pieces.mergedType, into: &out.text)
        out.text.append(contentsOf: Pieces.hits)
        for (i, h) in hits.enumerated() {
            if i > 0 { out.text.append(UInt8(ascii: ",")) }
            out.append(pieces: h.hit.pieces)
            out.text.append(contentsOf: Pieces.indexMember)
            JSONWriter.writeString(h.index, into: &out.text)
            out.text.append(contentsOf: Pieces.federationIndex)
            JSONWriter.writeString(h.index, into: &out.text)
            out.text.append(contentsOf: Pieces.rank)
            JSONWriter.writeNumber(Double(h.rank), into: &out.text)
            out.text.append(contentsOf: Pieces.weightedScore)
            if h.weightedScore == h.hit.rankingScore {
                LineBuilder.copy(h.hit.scoreText, into: &out.text)
            } else {
                JSONWriter.writeNumber(h.weightedScore, into: &out.text)
            }
            out.text.append(UInt8(ascii: "}"))
            out.text.append(UInt8(ascii: "}"))
        }
        out.text.append(contentsOf: Pieces.nbHits)
        JSONWriter.writeNumber(Double(nbHits), into: &out.text)
        JSONWriter.writeMembers(of: extra, into: &out.text)
        out.text.append(UInt8(ascii: "}"))
        out.text.append(0x0A)
        return out.finish()
    }

    /// The `done` frame line (the text `Frame.done(...).line()` has), written directly: every
    /// search ends with one.
    public static func done(
        id: String?, status: DoneStatus, sources: [(name: String, report: SourceReport)], ms: Double
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + 64 * sources.count)
        header(id: id, type: Pieces.doneType, into: &out)
        out.append(contentsOf: Pieces.status)
        JSONWriter.writeString(status.rawValue, into: &out)
        out.append(contentsOf: Pieces.sources)
        for (i, source) in sources.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(source.name, into: &out)
            out.append(UInt8(ascii: ":"))
            source.report.write(into: &out)
        }
        out.append(contentsOf: Pieces.ms)
        writeMilliseconds(ms, into: &out)
        out.append(UInt8(ascii: "}"))
        out.append(0x0A)
        return out
    }

    /// Milliseconds as `Frame.roundMs` rounds them and `JSONWriter.writeNumber` writes them:
    /// whole microseconds below 10^9 ms are written from their integer (the shortest text of
    /// such a value is its decimal with at most three fraction digits), the rest as usual.
    static func writeMilliseconds(_ ms: Double, into out: inout [UInt8]) {
        let rounded = Frame.roundMs(ms)
        let micros = (rounded * 1000).rounded()
        guard rounded > 0, rounded < 1e9, micros / 1000 == rounded else {
            JSONWriter.writeNumber(rounded, into: &out)
            return
        }
        let whole = Int(micros) / 1000
        let fraction = Int(micros) % 1000
        JSONWriter.writeNumber(Double(whole), into: &out)
        guard fraction > 0 else { return }
        out.append(UInt8(ascii: "."))
        var digits = fraction
        var width = 3
        while digits % 10 == 0 {
            digits /= 10
            width -= 1
        }
        // The fraction's digits, zero-padded on the left to its width.
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(digits / divisor % 10))
            divisor /= 10
        }
    }

    /// The fixed parts of frames, as bytes (appending an array is one copy; a string
    /// literal's UTF-8 view goes through the generic sequence path).
    private enum Pieces {
        static let id = Array(#"{"id":"#.utf8)
        static let null = Array("null".utf8)
        static let type = Array(#","type":"#.utf8)
        static let resultsType = Array(#""results""#.utf8)
        static let mergedType = Array(#""merged""#.utf8)
        static let doneType = Array(#""done""#.utf8)
        static let index = Array(#","index":"#.utf8)
        static let resultsHits = Array(#","results":{"hits":["#.utf8)
        static let closeResults = Array("}}\n".utf8)
        static let objectID = Array(#"{"objectID":"#.utf8)
        static let highlightResult = Array(#","_highlightResult":"#.utf8)
        static let rankingScore = Array(#","_rankingScore":"#.utf8)
        static let hits = Array(#","hits":["#.utf8)
        static let indexMember = Array(#","_index":"#.utf8)
        static let federationIndex = Array(#","_federation":{"index":"#.utf8)
        static let rank = Array(#","rank":"#.utf8)
        static let weightedScore = Array(#","weightedScore":"#.utf8)
        static let nbHits = Array(#"],"nbHits":"#.utf8)
        static let status = Array(#","status":"#.utf8)
        static let sources = Array(#","sources":{"#.utf8)
        static let ms = Array(#"},"ms":"#.utf8)
        static let nbHitsMember = Array(#","nbHits":"#.utf8)
        static let page = Array(#","page":"#.utf8)
        static let nbPages = Array(#","nbPages":"#.utf8)
        static let hitsPerPage = Array(#","hitsPerPage":"#.utf8)
        static let facets = Array(#","facets":{"#.utf8)
        static let facetsStats = Array(#"},"facets_stats":{"#.utf8)
        static let statsMin = Array(#":{"min":"#.utf8)
        static let statsMax = Array(#","max":"#.utf8)
        static let statsAvg = Array(#","avg":"#.utf8)
        static let statsSum = Array(#","sum":"#.utf8)
        static let exhaustiveTrue = Array(#"},"exhaustiveNbHits":true,"processingTimeMS":"#.utf8)
        static let exhaustiveFalse = Array(#"},"exhaustiveNbHits":false,"processingTimeMS":"#.utf8)
        static let timings = Array(#","processingTimingsMS":{"total":"#.utf8)
        static let query = Array(#"},"query":"#.utf8)
        static let params = Array(#","params":"#.utf8)
    }
}
