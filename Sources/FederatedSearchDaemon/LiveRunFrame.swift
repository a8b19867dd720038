import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol
import FederatedSearchServer

/// A run's frames that matter to subscribers (read off the loop, in the run's task).
enum RunFrame: Sendable {
    /// A planned search's source queries, by index.
    static func queries(of planned: ServerCore.PlannedSearch) -> [String: [SearchQuery]] {
        var out: [String: [SearchQuery]] = [:]
        for source in planned.sources { out[source.index, default: []].append(source.query) }
        return out
    }

    /// Which of the groups (each its queries of the written index) `probe` may have changed:
    /// their positions. A query asked by several groups is tried once.
    static func mayHaveChanged(_ groups: [[SearchQuery]], _ probe: ChangeProbe) -> [Int] {
        var tried: [String: [(query: SearchQuery, changed: Bool)]] = [:]
        func mayHave(_ q: SearchQuery) -> Bool {
            if let known = tried[q.text]?.first(where: { $0.query == q }) { return known.changed }
            let changed = probe.mayAffect(q)
            tried[q.text, default: []].append((q, changed))
            return changed
        }
        return groups.indices.filter { groups[$0].contains(where: mayHave) }
    }

    /// Every line of a search's answer, `done` last (off the loop, in a run's task).
    static func lines(of planned: ServerCore.PlannedSearch, on core: ServerCore) async -> [[UInt8]] {
        let lines = LineCollector()
        let done = await core.run(planned) { line, _ in lines.append(line) }
        return lines.lines.map(\.bytes) + [done.line()]
    }

    case results(String, LivePage)
    case merged(LivePage)
    /// An error frame, as sent (without an id).
    case other(JSONObject)

    /// The frames of a run's lines.
    static func parse(_ lines: [[UInt8]]) -> [RunFrame] {
        lines.compactMap { line in
            guard case .object(let frame)? = try? JSONParser.parse(line.last == 0x0A ? Array(line.dropLast()) : line) else { return nil }
            switch frame["type"]?.stringValue {
            case "results":
                guard let name = frame["index"]?.stringValue, let results = frame["results"]?.objectValue else { return nil }
                return .results(name, LivePage(answer: results))
            case "merged":
                var rest = JSONObject()
                for e in frame where e.key != "id" && e.key != "type" { rest.appendUnchecked(e.key, e.value) }
                return .merged(LivePage(answer: rest))
            case "done": return nil
            default: return .other(frame)
            }
        }
    }
}
