import FederatedSearchCore

/// Writes the large frames (results and merged) straight to bytes, without building a JSON
/// tree first, and encodes each hit once: the merged frame reuses the bytes of the hits the
/// results frames already encoded. Produces exactly the text of `Frame.line()`.
public enum FrameWriter {
    /// A hit's JSON without its closing brace, so `_index` can be appended for the merge.
    public struct EncodedHit: Sendable {
        public let open: [UInt8]
    }

    /// Encodes one hit as `Hit.json()` would, minus the final `}`.
    public static func encode(_ hit: Hit) -> EncodedHit {
        var out: [UInt8] = []
        // Room for the parts already encoded, so the hit is written without growing.
        out.reserveCapacity(
            96 + hit.objectID.utf8.count + (hit.encodedAttributes?.count ?? 256) + (hit.encodedHighlightResult?.count ?? 256))
        out.append(contentsOf: #"{"objectID":"#.utf8)
        JSONWriter.writeString(hit.objectID, into: &out)
        if let encoded = hit.encodedAttributes {
            out.append(contentsOf: encoded)
        } else {
            JSONWriter.writeMembers(of: hit.attributes, except: "objectID", into: &out)
        }
        if let encoded = hit.encodedHighlightResult {
            out.append(contentsOf: #","_highlightResult":"#.utf8)
            out.append(contentsOf: encoded)
        } else if let h = hit.highlightResult {
            member("_highlightResult", .object(h), into: &out)
        }
        if let s = hit.snippetResult { member("_snippetResult", .object(s), into: &out) }
        if let r = hit.rankingInfo { member("_rankingInfo", .object(r), into: &out) }
        member("_rankingScore", .number(hit.rankingScore), into: &out)
        return EncodedHit(open: out)
    }

    private static func member(_ key: String, _ value: JSONValue, into out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        JSONWriter.writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
        JSONWriter.write(value, into: &out)
    }

    private static func header(id: String?, type: String, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"id":"#.utf8)
        if let id { JSONWriter.writeString(id, into: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","type":"#.utf8)
        JSONWriter.writeString(type, into: &out)
    }

    /// The `results` frame line, and each hit's encoding for the merge.
    public static func results(id: String?, index: String, results: SearchResults) -> (line: [UInt8], hits: [EncodedHit]) {
        let hits = results.hits.map(encode)
        var out: [UInt8] = []
        out.reserveCapacity(hits.reduce(512) { $0 + $1.open.count + 2 })
        header(id: id, type: "results", into: &out)
        out.append(contentsOf: #","index":"#.utf8)
        JSONWriter.writeString(index, into: &out)
        out.append(contentsOf: #","results":{"hits":["#.utf8)
        for (i, h) in hits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: h.open)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        // The rest of the response is small: write it through the tree.
        var rest = results
        rest.hits = []
        guard case .object(let tail) = rest.json() else { return (out, hits) }
        JSONWriter.writeMembers(of: tail, except: "hits", into: &out)
        out.append(contentsOf: "}}\n".utf8)
        return (out, hits)
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
        out.reserveCapacity(hits.reduce(128) { $0 + $1.hit.open.count + 2 * $1.index.utf8.count + 80 })
        header(id: id, type: "merged", into: &out)
        out.append(contentsOf: #","hits":["#.utf8)
        for (i, h) in hits.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: h.hit.open)
            out.append(contentsOf: #","_index":"#.utf8)
            JSONWriter.writeString(h.index, into: &out)
            out.append(contentsOf: #","_federation":{"index":"#.utf8)
            JSONWriter.writeString(h.index, into: &out)
            out.append(contentsOf: #","rank":"#.utf8)
            JSONWriter.writeNumber(Double(h.rank), into: &out)
            out.append(contentsOf: #","weightedScore":"#.utf8)
            JSONWriter.writeNumber(h.weightedScore, into: &out)
            out.append(contentsOf: "}}".utf8)
        }
        out.append(contentsOf: #"],"nbHits":"#.utf8)
        JSONWriter.writeNumber(Double(nbHits), into: &out)
        JSONWriter.writeMembers(of: extra, into: &out)
        out.append(contentsOf: "}\n".utf8)
        return out
    }
}
