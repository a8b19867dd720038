import FederatedSearchCore

/// A hit in the merged list, with the index it came from.
public struct MergedHit: Sendable, Equatable {
    /// The name the source answered under.
    public var index: String
    public var hit: Hit
    /// The hit's rank within its source, from 0.
    public var rank: Int
    /// The value the merge ordered by (`_rankingScore × weight`, or the RRF sum).
    public var weightedScore: Double

    public init(index: String, hit: Hit, rank: Int = 0, weightedScore: Double? = nil) {
        self.index = index
        self.hit = hit
        self.rank = rank
        self.weightedScore = weightedScore ?? hit.rankingScore
    }
}

/// The merged list of a federated search.
public struct MergedResults: Sendable, Equatable {
    public var hits: [MergedHit]
    /// The sum of the answering sources' nbHits.
    public var nbHits: Int
    /// The other members: `strategy`, `offset`, `limit` for an explicit merge, and the merged
    /// `facets`, `facets_stats` and `exhaustive` when a facet merge was asked for.
    public var extra: JSONObject

    public init(hits: [MergedHit], nbHits: Int, extra: JSONObject = [:]) {
        self.hits = hits
        self.nbHits = nbHits
        self.extra = extra
    }
}

/// How a request ended, in its `done` frame.
public enum DoneStatus: String, Sendable, Equatable {
    /// Every source answered.
    case ok
    /// Some sources failed or timed out; the others' results stand.
    case partial
    /// Every source failed or timed out.
    case failed
    /// The request was cancelled (by `cancel` or the client going away).
    case cancelled
    /// A newer request of the same session replaced it; no frame of it follows this one.
    case superseded
}

/// One line the daemon sends. Every frame echoes the request's `id`.
public enum Frame: Sendable, Equatable {
    /// One source's results, sent as soon as that source finishes.
    case results(id: String?, index: String, results: SearchResults)
    /// A request that could not be served, or (with `index`) one source that failed.
    case error(id: String?, index: String?, error: SearchError)
    /// The merged list, after every source has answered, failed or timed out.
    case merged(id: String?, results: MergedResults)
    /// The last frame of a search: what each source did.
    case done(id: String?, status: DoneStatus, sources: [(name: String, report: SourceReport)], ms: Double)
    /// The answer to `ping`.
    case pong(id: String?, protocolVersion: Int, version: String)
    /// The answer to `cancel`: the request was found and is being cancelled.
    case cancelAccepted(id: String?, target: String)
    /// The answer to `indices` or `stats`: a payload object under `type`.
    case info(id: String?, type: String, payload: JSONObject)

    public static func == (a: Frame, b: Frame) -> Bool { a.json() == b.json() }

    /// The frame's `type` on the wire.
    public var type: String {
        switch self {
        case .results: return "results"
        case .error: return "error"
        case .merged: return "merged"
        case .done: return "done"
        case .pong: return "pong"
        case .cancelAccepted: return "cancel"
        case .info(_, let type, _): return type
        }
    }

    /// The request id the frame answers.
    public var id: String? {
        switch self {
        case .results(let id, _, _), .error(let id, _, _), .merged(let id, _), .done(let id, _, _, _),
            .pong(let id, _, _), .cancelAccepted(let id, _), .info(let id, _, _):
            return id
        }
    }

    /// The same frame answering another request id.
    public func withID(_ newID: String?) -> Frame {
        switch self {
        case .results(_, let i, let r): return .results(id: newID, index: i, results: r)
        case .error(_, let i, let e): return .error(id: newID, index: i, error: e)
        case .merged(_, let m): return .merged(id: newID, results: m)
        case .done(_, let s, let src, let ms): return .done(id: newID, status: s, sources: src, ms: ms)
        case .pong(_, let p, let v): return .pong(id: newID, protocolVersion: p, version: v)
        case .cancelAccepted(_, let t): return .cancelAccepted(id: newID, target: t)
        case .info(_, let t, let p): return .info(id: newID, type: t, payload: p)
        }
    }

    /// Milliseconds rounded to microseconds, so frames stay short.
    static func roundMs(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }

    /// The frame as a JSON object.
    public func json() -> JSONValue {
        var o = JSONObject()
        o.appendUnchecked("id", id.map(RequestID.json) ?? .null)
        o.appendUnchecked("type", .string(type))
        switch self {
        case .results(_, let index, let results):
            o.appendUnchecked("index", .string(index))
            o.appendUnchecked("results", results.json())
        case .error(_, let index, let error):
            if let index { o.appendUnchecked("index", .string(index)) }
            o.appendUnchecked("error", ["code": .string(error.code.rawValue), "message": .string(error.message)])
        case .merged(_, let merged):
            o.appendUnchecked(
                "hits",
                .array(
                    merged.hits.map { m in
                        guard case .object(var h) = m.hit.json() else { return .null }
                        h["_index"] = .string(m.index)
                        h["_federation"] = [
                            "index": .string(m.index), "rank": .number(Double(m.rank)), "weightedScore": .number(m.weightedScore),
                        ]
                        return .object(h)
                    }))
            o.appendUnchecked("nbHits", .number(Double(merged.nbHits)))
            for e in merged.extra.entries { o.appendUnchecked(e.key, e.value) }
        case .done(_, let status, let sources, let ms):
            o.appendUnchecked("status", .string(status.rawValue))
            var s = JSONObject()
            for source in sources { s.appendUnchecked(source.name, source.report.json()) }
            o.appendUnchecked("sources", .object(s))
            o.appendUnchecked("ms", .number(Self.roundMs(ms)))
        case .pong(_, let protocolVersion, let version):
            o.appendUnchecked("protocol", .number(Double(protocolVersion)))
            o.appendUnchecked("version", .string(version))
        case .cancelAccepted(_, let target):
            o.appendUnchecked("target", RequestID.json(target))
        case .info(_, _, let payload):
            for e in payload.entries { o.appendUnchecked(e.key, e.value) }
        }
        return .object(o)
    }

    /// The frame as one NDJSON line, newline included.
    public func line() -> [UInt8] {
        if case .done(let id, let status, let sources, let ms) = self {
            return FrameWriter.done(id: id, status: status, sources: sources, ms: ms)
        }
        var out: [UInt8] = []
        out.reserveCapacity(512)
        JSONWriter.write(json(), into: &out)
        out.append(0x0A)
        return out
    }
}

extension Frame {
    /// Whether this is the last frame of its request.
    public var endsRequest: Bool {
        switch self {
        case .results, .merged: return false
        case .error(_, let index, _): return index == nil
        default: return true
        }
    }
}
