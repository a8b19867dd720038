import FederatedSearchCore

/// Decodes the daemon's frames (the client's side of the protocol).
///
/// The frame is walked once with a ``JSONParser`` cursor. The hits of `results` and `merged`
/// frames, which make most of an answer's bytes, are checked but not built: each ``Hit``
/// keeps its attributes and `_highlightResult` as runs of the frame's line, parsed when read
/// (see ``Hit/attribute(_:)`` and ``Hit/highlightResult(for:)``). The rest is built as a tree.
public enum FrameDecoder {
    /// Decodes one frame line (without its newline).
    public static func decode(_ line: [UInt8]) throws(SearchError) -> Frame {
        var none: HitDecoder.Memory?
        return try decode(line, remembering: &none)
    }

    /// Decodes one frame line; with `remembering`, the hits of a results frame are kept under
    /// the frame's request id, and a merged frame's hits that repeat them are not checked again.
    static func decode(_ line: [UInt8], remembering: inout HitDecoder.Memory?) throws(SearchError) -> Frame {
        do {
            return try walk(line, remembering: &remembering)
        } catch let e as JSONParseError {
            throw SearchError(.invalidJSON, "frame: \(e.reason) at byte \(e.offset)")
        } catch let e as SearchError {
            throw e
        } catch {
            throw SearchError(.invalidJSON, "frame: \(error)")
        }
    }

    /// The frame's members in one pass: `results` and `hits` decoded straight into hits when
    /// `type` came before them (as the daemon writes it), everything else as trees.
    private static func walk(_ line: [UInt8], remembering: inout HitDecoder.Memory?) throws -> Frame {
        var p = JSONParser(bytes: line)
        guard p.peek(UInt8(ascii: "{")) else {
            _ = try JSONParser.parse(line)  // a parse error, or a valid non-object
            throw SearchError(.invalidJSON, "frame: expected an object")
        }
        try p.enterObject()
        var o = JSONObject()
        var type: String?
        var results: SearchResults?
        var merged: [MergedHit]?
        // The request's hits seen so far, when they are remembered (`id` comes first).
        func requestID() -> String? { o["id"]?.stringValue }
        while let key = try p.nextKey() {
            switch key {
            case "results" where type == "results":
                let id = requestID()
                // Taken out while it grows, so that adding to it copies nothing.
                var known = remembering == nil || id == nil ? nil : remembering!.byRequest.removeValue(forKey: id!) ?? [:]
                results = try HitDecoder.results(&p, path: "results", index: o["index"]?.stringValue ?? "", known: &known)
                if let known, let id { remembering!.byRequest[id] = known }
            case "hits" where type == "merged":
                var taken = 0
                merged = try HitDecoder.mergedHits(
                    &p, path: "hits", known: requestID().flatMap { remembering?.byRequest[$0] }, taken: &taken)
                remembering?.taken += taken
            default:
                let value = try p.parseValue()
                if key == "type" { type = value.stringValue }
                o[key] = value
            }
        }
        try p.expectEnd()
        // Frames answering no request (a bad line without an id) carry `"id":null`.
        let id = o["id"] == .null ? nil : try RequestID.decode(o["id"], path: "id")
        if let results {
            guard let index = o["index"]?.stringValue else { throw SearchError(.missingField, "frame: results frame without index") }
            return .results(id: id, index: index, results: results)
        }
        if let merged {
            var extra = JSONObject()
            for e in o.entries where !["id", "type", "hits", "nbHits"].contains(e.key) { extra.appendUnchecked(e.key, e.value) }
            return .merged(id: id, results: MergedResults(hits: merged, nbHits: o["nbHits"]?.intValue ?? merged.count, extra: extra))
        }
        return try decode(object: o)
    }

    /// A frame already parsed as a tree.
    private static func decode(object o: JSONObject) throws(SearchError) -> Frame {
        // Frames answering no request (a bad line without an id) carry `"id":null`.
        let id = o["id"] == .null ? nil : try RequestID.decode(o["id"], path: "id")
        guard let type = o["type"]?.stringValue else { throw SearchError(.missingField, "frame.type: missing") }
        switch type {
        case "results":
            guard let index = o["index"]?.stringValue, let results = o["results"] else {
                throw SearchError(.missingField, "frame: results frame without index or results")
            }
            return .results(id: id, index: index, results: try SearchResults(json: results, path: "results"))
        case "error":
            let e = o["error"]?.objectValue ?? JSONObject()
            let code = ErrorCode(rawValue: e["code"]?.stringValue ?? "internal_error")
            return .error(id: id, index: o["index"]?.stringValue, error: SearchError(code, e["message"]?.stringValue ?? ""))
        case "merged":
            return .merged(id: id, results: try MergedResults(json: o))
        case "done":
            var sources: [(name: String, report: SourceReport)] = []
            for e in o["sources"]?.objectValue ?? JSONObject() {
                let s = e.value.objectValue ?? JSONObject()
                let status = SourceReport.Status(rawValue: s["status"]?.stringValue ?? "") ?? .error
                sources.append(
                    (
                        e.key,
                        SourceReport(
                            status: status, ms: s["ms"]?.numberValue ?? 0, nbHits: s["nbHits"]?.intValue,
                            errorCode: s["code"]?.stringValue.map { ErrorCode(rawValue: $0) },
                            suspendedForMs: s["suspendedForMs"]?.numberValue)
                    ))
            }
            let status = DoneStatus(rawValue: o["status"]?.stringValue ?? "") ?? .ok
            return .done(id: id, status: status, sources: sources, ms: o["ms"]?.numberValue ?? 0)
        case "pong":
            return .pong(id: id, protocolVersion: o["protocol"]?.intValue ?? 0, version: o["version"]?.stringValue ?? "")
        case "cancel":
            return .cancelAccepted(id: id, target: try RequestID.decode(o["target"], path: "target") ?? "")
        default:
            var payload = JSONObject()
            for e in o.entries where e.key != "id" && e.key != "type" { payload.appendUnchecked(e.key, e.value) }
            return .info(id: id, type: type, payload: payload)
        }
    }
}

/// Decodes the frames of one connection's answers: as ``FrameDecoder``, and it remembers each
/// request's hits from its results frames until the request ends, so that the merged list's
/// hits, which repeat them byte for byte, are taken from them instead of being checked again.
public struct AnswerDecoder {
    private var hits: HitDecoder.Memory? = HitDecoder.Memory()
    /// How many requests' hits are remembered now (none once every request has ended).
    var requestsRemembered: Int { hits?.byRequest.count ?? 0 }
    /// How many merged hits were taken from the results frames' hits.
    var mergedHitsTaken: Int { hits?.taken ?? 0 }

    public init() {}

    /// Decodes one frame line (without its newline).
    public mutating func decode(_ line: [UInt8]) throws(SearchError) -> Frame {
        let frame = try FrameDecoder.decode(line, remembering: &hits)
        if frame.endsRequest, let id = frame.id { hits!.byRequest[id] = nil }
        return frame
    }
}

extension MergedResults {
    /// The merged list of a `merged` frame's object (its `id` and `type` are not kept).
    public init(json o: JSONObject) throws(SearchError) {
        var hits: [MergedHit] = []
        for (i, h) in (o["hits"]?.arrayValue ?? []).enumerated() {
            let federation = h.objectValue?["_federation"]?.objectValue
            let hit = try Hit(json: h, path: "hits[\(i)]")
            hits.append(
                MergedHit(
                    index: h.objectValue?["_index"]?.stringValue ?? "", hit: hit, rank: federation?["rank"]?.intValue ?? 0,
                    weightedScore: federation?["weightedScore"]?.numberValue))
        }
        var extra = JSONObject()
        for e in o.entries where !["id", "type", "hits", "nbHits"].contains(e.key) { extra.appendUnchecked(e.key, e.value) }
        self.init(hits: hits, nbHits: o["nbHits"]?.intValue ?? hits.count, extra: extra)
    }
}
