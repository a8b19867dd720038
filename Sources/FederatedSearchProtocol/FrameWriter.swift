import FederatedSearchCore

/// Writes the large frames (results and merged) straight to bytes, without building a JSON
/// tree first, and encodes each hit once: the merged frame reuses the bytes of the hits the
/// results frames already encoded. Produces exactly the text of `Frame.line()`.
public enum FrameWriter {
    /// A hit's JSON without its closing brace, so `_index` can be appended for the merge: a
    /// range of the bytes it was written into (the results frame's line, shared, not copied).
    public struct EncodedHit: Sendable {
        let bytes: [UInt8]
        let range: Range<Int>
        /// The hit's `_rankingScore`, and where its text is in `bytes` (the merge's
        /// `weightedScore` is often the same number: its text is copied, not formatted again).
        public let rankingScore: Double
        let scoreText: Range<Int>

        /// The hit's JSON without its closing brace.
        public var open: ArraySlice<UInt8> { bytes[range] }
    }

    /// Encodes one hit as `Hit.json()` would, minus the final `}`.
    public static func encode(_ hit: Hit) -> EncodedHit {
        var out: [UInt8] = []
        out.reserveCapacity(size(of: hit))
        let (range, score) = write(hit, into: &out)
        return EncodedHit(bytes: out, range: range, rankingScore: hit.rankingScore, scoreText: score)
    }

    /// About the size of a hit's JSON: its parts already encoded, and a little room for the
    /// rest (a hit from a remote backend has its parts as trees: the line grows as written,
    /// rather than holding a large guess for the whole request).
    private static func size(of hit: Hit) -> Int {
        96 + hit.objectID.utf8.count + (hit.encodedAttributes?.count ?? 64) + (hit.encodedHighlightResult?.count ?? 64)
    }

    /// Appends a hit's JSON minus the final `}`; returns where it is and where its
    /// `_rankingScore` text is.
    private static func write(_ hit: Hit, into out: inout [UInt8]) -> (hit: Range<Int>, score: Range<Int>) {
        let start = out.count
        out.append(contentsOf: Pieces.objectID)
        JSONWriter.writeString(hit.objectID, into: &out)
        if let encoded = hit.encodedAttributes {
            out.append(contentsOf: encoded)
        } else {
            JSONWriter.writeMembers(of: hit.attributes, except: "objectID", into: &out)
        }
        if let encoded = hit.encodedHighlightResult {
            out.append(contentsOf: Pieces.highlightResult)
            out.append(contentsOf: encoded)
        } else if let h = hit.highlightResult {
            member("_highlightResult", .object(h), into: &out)
        }
        if let s = hit.snippetResult { member("_snippetResult", .object(s), into: &out) }
        if let r = hit.rankingInfo { member("_rankingInfo", .object(r), into: &out) }
        out.append(contentsOf: Pieces.rankingScore)
        let scoreStart = out.count
        JSONWriter.writeNumber(hit.rankingScore, into: &out)
        return (start..<out.count, scoreStart..<out.count)
    }

    /// Appends bytes `range` of `bytes` with one copy (a slice would go element by element).
    /// Pointer use: the buffer is `bytes`' storage borrowed for the call, read inside `range`.
    private static func append(_ bytes: [UInt8], _ range: Range<Int>, to out: inout [UInt8]) {
        bytes.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
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
    public static func isDone(_ line: [UInt8], id: String?) -> Bool {
        var head: [UInt8] = []
        header(id: id, type: Pieces.doneType, into: &head)
        return line.starts(with: head)
    }

    /// The `results` frame line, and each hit's encoding for the merge.
    /// Each hit is written once, into the line; the merge copies it from there.
    public static func results(id: String?, index: String, results: SearchResults) -> (line: [UInt8], hits: [EncodedHit]) {
        var out: [UInt8] = []
        out.reserveCapacity(results.hits.reduce(512) { $0 + size(of: $1) + 2 })
        header(id: id, type: Pieces.resultsType, into: &out)
        out.append(contentsOf: Pieces.index)
        JSONWriter.writeString(index, into: &out)
        out.append(contentsOf: Pieces.resultsHits)
        var places: [(hit: Range<Int>, score: Range<Int>)] = []
        places.reserveCapacity(results.hits.count)
        for (i, hit) in results.hits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            places.append(write(hit, into: &out))
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        writeTail(of: results, into: &out)
        out.append(contentsOf: Pieces.closeResults)
        let line = out
        let hits = zip(results.hits, places).map {
            EncodedHit(bytes: line, range: $1.hit, rankingScore: $0.rankingScore, scoreText: $1.score)
        }
        return (line, hits)
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
    /// `_federation: {index, rank, weightedScore}`; `extra` members follow `nbHits`.
    public static func merged(id: String?, hits: [MergedHitBytes], nbHits: Int, extra: JSONObject = [:]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(hits.reduce(128) { $0 + $1.hit.range.count + 2 * $1.index.utf8.count + 80 })
        header(id: id, type: Pieces.mergedType, into: &out)
        out.append(contentsOf: Pieces.hits)
        for (i, h) in hits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            append(h.hit.bytes, h.hit.range, to: &out)
            out.append(contentsOf: Pieces.indexMember)
            JSONWriter.writeString(h.index, into: &out)
            out.append(contentsOf: Pieces.federationIndex)
            JSONWriter.writeString(h.index, into: &out)
            out.append(contentsOf: Pieces.rank)
            JSONWriter.writeNumber(Double(h.rank), into: &out)
            out.append(contentsOf: Pieces.weightedScore)
            if h.weightedScore == h.hit.rankingScore {
                append(h.hit.bytes, h.hit.scoreText, to: &out)
            } else {
                JSONWriter.writeNumber(h.weightedScore, into: &out)
            }
            out.append(UInt8(ascii: "}"))
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: Pieces.nbHits)
        JSONWriter.writeNumber(Double(nbHits), into: &out)
        JSONWriter.writeMembers(of: extra, into: &out)
        out.append(UInt8(ascii: "}"))
        out.append(0x0A)
        return out
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
        let whole = Int(micros) / 1000, fraction = Int(micros) % 1000
        JSONWriter.writeNumber(Double(whole), into: &out)
        guard fraction > 0 else { return }
        out.append(UInt8(ascii: "."))
        var digits = fraction, width = 3
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
