import FederatedSearchCore

/// Decodes the daemon's frames (the client's side of the protocol).
public enum FrameDecoder {
    /// Decodes one frame line (without its newline).
    public static func decode(_ line: [UInt8]) throws(SearchError) -> Frame {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            throw SearchError(.invalidJSON, "frame: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let o) = value else { throw SearchError(.invalidJSON, "frame: expected an object") }
        let id = o["id"]?.stringValue
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
            var hits: [MergedHit] = []
            for (i, h) in (o["hits"]?.arrayValue ?? []).enumerated() {
                let federation = h.objectValue?["_federation"]?.objectValue
                let hit = try Hit(json: h, path: "hits[\(i)]")
                hits.append(MergedHit(
                    index: h.objectValue?["_index"]?.stringValue ?? "", hit: hit, rank: federation?["rank"]?.intValue ?? 0,
                    weightedScore: federation?["weightedScore"]?.numberValue))
            }
            var extra = JSONObject()
            for e in o.entries where !["id", "type", "hits", "nbHits"].contains(e.key) { extra.appendUnchecked(e.key, e.value) }
            return .merged(id: id, results: MergedResults(hits: hits, nbHits: o["nbHits"]?.intValue ?? hits.count, extra: extra))
        case "done":
            var sources: [(name: String, report: SourceReport)] = []
            for e in o["sources"]?.objectValue ?? JSONObject() {
                let s = e.value.objectValue ?? JSONObject()
                let status = SourceReport.Status(rawValue: s["status"]?.stringValue ?? "") ?? .error
                sources.append((e.key, SourceReport(
                    status: status, ms: s["ms"]?.numberValue ?? 0, nbHits: s["nbHits"]?.intValue,
                    errorCode: s["code"]?.stringValue.map { ErrorCode(rawValue: $0) },
                    suspendedForMs: s["suspendedForMs"]?.numberValue)))
            }
            let status = DoneStatus(rawValue: o["status"]?.stringValue ?? "") ?? .ok
            return .done(id: id, status: status, sources: sources, ms: o["ms"]?.numberValue ?? 0)
        case "pong":
            return .pong(id: id, protocolVersion: o["protocol"]?.intValue ?? 0, version: o["version"]?.stringValue ?? "")
        case "cancel":
            return .cancelAccepted(id: id, target: o["target"]?.stringValue ?? "")
        default:
            var payload = JSONObject()
            for e in o.entries where e.key != "id" && e.key != "type" { payload.appendUnchecked(e.key, e.value) }
            return .info(id: id, type: type, payload: payload)
        }
    }
}
