#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchProtocol

/// Renders frames for a person: one block per index as its frame arrives, then the merged
/// list and the timings.
struct HumanOutput {
    let useColor: Bool

    init() { useColor = isatty(1) == 1 && getenv("NO_COLOR") == nil }

    func bold(_ s: String) -> String { useColor ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
    func dim(_ s: String) -> String { useColor ? "\u{1B}[2m\(s)\u{1B}[0m" : s }

    /// Replaces highlight tags with bold (on a terminal) or nothing.
    func renderHighlight(_ s: String) -> String {
        var out = s
        out = out.replacing("<em>", with: useColor ? "\u{1B}[1;33m" : "")
        out = out.replacing("</em>", with: useColor ? "\u{1B}[0m" : "")
        return out
    }

    /// The line that stands for a hit: its best highlighted text attribute, else a title-like one.
    func label(_ hit: Hit) -> String {
        if let hr = hit.highlightResult {
            for e in hr.entries {
                if let v = e.value.objectValue?["value"]?.stringValue { return renderHighlight(v) }
                if let first = e.value.arrayValue?.first?.objectValue?["value"]?.stringValue {
                    return renderHighlight(first)
                }
            }
        }
        for key in ["title", "name"] {
            if let v = hit.attribute(key)?.stringValue { return v }
        }
        for e in hit.attributes.entries { if let v = e.value.stringValue { return v } }
        return hit.objectID
    }

    func print(_ frame: Frame) {
        switch frame {
        case .results(_, let index, let r):
            Swift.print(bold("\(index)") + "  \(r.nbHits) hits, page \(r.page + 1)/\(max(r.nbPages, 1))  " + dim(ms(r.processingTimeMS)))
            for (i, hit) in r.hits.enumerated() {
                Swift.print(
                    "  \(i + 1 + r.page * r.hitsPerPage). \(label(hit))  " + dim("[\(hit.objectID), score \(score(hit.rankingScore))]"))
            }
            for f in r.facets where !f.values.isEmpty {
                let values = f.values.prefix(10).map { "\($0.value) (\($0.count))" }.joined(separator: ", ")
                Swift.print("  " + dim("facet \(f.attribute):") + " \(values)")
            }
            for s in r.facetsStats {
                Swift.print("  " + dim("stats \(s.attribute):") + " min \(num(s.min)), max \(num(s.max)), avg \(num(s.avg))")
            }
        case .error(_, let index, let e):
            writeToStandardError("error\(index.map { " from \($0)" } ?? ""): \(e.message) [\(e.code.rawValue)]\n")
        case .merged(_, let m):
            Swift.print(bold("merged") + "  \(m.nbHits) hits in all")
            for (i, h) in m.hits.enumerated() {
                Swift.print("  \(i + 1). " + dim("[\(h.index)]") + " \(label(h.hit))  " + dim("score \(score(h.hit.rankingScore))"))
            }
        case .done(_, let status, let sources, let total):
            let parts = sources.map { s -> String in
                var t = "\(s.name) \(s.report.status.rawValue) \(ms(s.report.ms))"
                if let n = s.report.nbHits { t += ", \(n) hits" }
                if let c = s.report.errorCode, s.report.status != .ok { t += ", \(c.rawValue)" }
                return t
            }
            Swift.print(dim("done (\(status.rawValue)) in \(ms(total)): " + parts.joined(separator: "; ")))
        case .pong(_, let p, let v):
            Swift.print("pong: fedsearchd \(v), protocol \(p)")
        case .cancelAccepted(_, let target):
            Swift.print("cancelling \(target)")
        case .info(_, let type, let payload):
            if type == "indices", let list = payload["indices"]?.arrayValue {
                for item in list {
                    let o = item.objectValue ?? JSONObject()
                    let name = o["name"]?.stringValue ?? "?"
                    let docs = o["documents"]?.intValue.map(String.init) ?? "?"
                    let kind = o["backend"]?.stringValue ?? "?"
                    let facets = (o["attributesForFaceting"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: ", ")
                    let writable = o["writable"] == .bool(true) ? ", writable" : ""
                    Swift.print(bold(name) + "  \(kind)\(writable), \(docs) documents" + (facets.isEmpty ? "" : ", facets: \(facets)"))
                }
            } else if type == "stats" {
                printStats(payload)
            } else if type == "reload" {
                func names(_ key: String) -> String {
                    let list = (payload[key]?.arrayValue ?? []).compactMap(\.stringValue)
                    return list.isEmpty ? "none" : list.joined(separator: ", ")
                }
                Swift.print(
                    "reloaded (\(payload["status"]?.stringValue ?? "?")): rebuilt \(names("rebuilt")); kept \(names("kept")); removed \(names("removed"))"
                )
            } else {
                Swift.print(JSONWriter.string(.object(payload)))
            }
        }
    }

    /// `stats` as lines: the counters, then a line per index (latency, breaker, writes).
    func printStats(_ p: JSONObject) {
        func int(_ key: String) -> Int { p[key]?.intValue ?? 0 }
        Swift.print(
            "up \(int("uptimeSeconds")) s, \(int("connections")) connection\(int("connections") == 1 ? "" : "s"), "
                + "\(int("queriesServed")) quer\(int("queriesServed") == 1 ? "y" : "ies") served, \(int("queriesFailed")) failed")
        let latency = p["latency"]?.objectValue ?? [:]
        let breakers = p["circuitBreakers"]?.objectValue ?? [:]
        let writes = p["writes"]?.objectValue ?? [:]
        let backends = p["backends"]?.objectValue ?? [:]
        var names = latency.keys
        for n in breakers.keys + writes.keys + backends.keys where !names.contains(n) { names.append(n) }
        for name in names {
            var parts: [String] = []
            if let l = latency[name]?.objectValue {
                func v(_ k: String) -> String { l[k]?.numberValue.map(ms) ?? "-" }
                let n = l["samples"]?.intValue ?? 0
                parts.append("p50 \(v("p50Ms")), p90 \(v("p90Ms")), p99 \(v("p99Ms")) over \(n) search\(n == 1 ? "" : "es")")
            }
            if let b = breakers[name]?.objectValue, let state = b["state"]?.stringValue {
                let failures = b["consecutiveFailures"]?.intValue ?? 0
                parts.append("breaker \(state)" + (failures > 0 ? " (\(failures) failures in a row)" : ""))
            }
            if let w = writes[name]?.objectValue { parts.append("writes \(JSONWriter.string(.object(w)))") }
            Swift.print(bold(name) + "  " + parts.joined(separator: "; "))
            // A cluster's nodes, one line each: health, requests, failures, the last error.
            for node in backends[name]?.objectValue?["nodes"]?.arrayValue ?? [] {
                guard let n = node.objectValue else { continue }
                var line =
                    "  node \(n["url"]?.stringValue ?? "?")\(n["nearest"] == true ? " (nearest)" : ""): "
                    + (n["healthy"] == true ? "healthy" : "unhealthy")
                if let retry = n["retryInMs"]?.intValue { line += ", tried again in \(retry) ms" }
                line += ", \(n["requests"]?.intValue ?? 0) requests, \(n["failures"]?.intValue ?? 0) failures"
                if let e = n["lastError"]?.stringValue { line += "; last: \(e)" }
                Swift.print(dim(line))
            }
        }
        if let placement = p["placement"]?.objectValue {
            let counts = placement.entries.map { "\($0.key) \($0.value.intValue ?? 0)" }.joined(separator: ", ")
            Swift.print(dim("placement: \(counts)"))
        }
        // Back-pressure (docs/RELIABILITY.md): searches waiting for a slot, output clients have not read.
        if let queued = p["queuedSearches"]?.intValue, let pending = p["pendingOutputBytes"]?.intValue {
            let streamed = p["streamedOutputBytes"]?.intValue ?? 0
            let held = streamed > 0 ? " (\(streamed) of them not yet copied for the socket)" : ""
            Swift.print(dim("waiting: \(queued) searches queued, \(pending) bytes of answers unread by clients\(held)"))
        }
        if let http = p["http"]?.objectValue {
            let listen = http["listen"]?.stringValue ?? "?"
            Swift.print(
                dim(
                    "http: \(listen), \(http["connections"]?.intValue ?? 0) connections, "
                        + "\(http["requests"]?.intValue ?? 0) requests being answered, \(http["served"]?.intValue ?? 0) answered"))
        }
    }

    func ms(_ v: Double) -> String {
        let r = (v * 100).rounded() / 100
        return "\(r) ms"
    }

    func score(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return "\(r)"
    }

    func num(_ v: Double) -> String { JSONWriter.string(.number(v)) }
}
