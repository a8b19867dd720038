import FederatedSearchCore
import InstantSearch

/// A hit's text with its matched words marked: the daemon's `_highlightResult` value, whose
/// matches sit between `<em>` and `</em>`, as runs of plain and highlighted text.
public enum HighlightedText {
    /// The runs of `value` (tags removed).
    public static func runs(_ value: String, preTag: String = "<em>", postTag: String = "</em>") -> [(String, Style)] {
        var runs: [(String, Style)] = []
        var rest = Substring(value)
        var inside = false
        while !rest.isEmpty {
            let tag = inside ? postTag : preTag
            if let r = rest.firstRange(of: tag) {
                if r.lowerBound > rest.startIndex { runs.append((String(rest[..<r.lowerBound]), inside ? .highlight : .normal)) }
                rest = rest[r.upperBound...]
                inside.toggle()
            } else {
                runs.append((String(rest), inside ? .highlight : .normal))
                break
            }
        }
        return runs
    }

    /// The line that stands for `hit`: its first highlighted attribute among `attributes`
    /// (else any highlighted string), else its `title` or `name`, else its id.
    public static func label(_ hit: Hit, attributes: [String] = ["title", "name"]) -> [(String, Style)] {
        for key in attributes {
            if let v = hit.highlightResult(for: key)?.objectValue?["value"]?.stringValue { return runs(v) }
        }
        if let hr = hit.highlightResult {
            for e in hr.entries {
                if let v = e.value.objectValue?["value"]?.stringValue { return runs(v) }
            }
        }
        for key in attributes {
            if let v = hit.attribute(key)?.stringValue { return [(v, .normal)] }
        }
        return [(hit.objectID, .normal)]
    }

    /// The line that says why `hit` matched, for under its label: of its highlighted
    /// attributes other than `labelAttributes` (only `among`, in that order, when given), the
    /// one that matched best (a full match over a partial one, then the most words), its text
    /// from a little before its first match; of an array, the elements that matched. Nil when
    /// none matched (with `among`: the first of them as it is, unhighlighted). `lead`: the
    /// characters kept before the first match.
    public static func detail(
        _ hit: Hit, labelAttributes: [String] = ["title", "name"], among: [String]? = nil, lead: Int = 24
    ) -> [(String, Style)]? {
        guard let hr = hit.highlightResult else { return nil }
        let label = labelAttributes.first { hit.highlightResult(for: $0) != nil }
        var best: (score: Int, runs: [(String, Style)])?
        for e in hr.entries where e.key != label && (among?.contains(e.key) ?? true) {
            guard let (score, text) = matched(e.value), score > 0 else { continue }
            let rank = among.map { score * 1000 - ($0.firstIndex(of: e.key) ?? 0) } ?? score
            if best.map({ rank > $0.score }) ?? true { best = (rank, window(runs(text), lead: lead)) }
        }
        if let best { return best.runs }
        guard let first = among?.first, let value = hit.attribute(first) else { return nil }
        switch value {
        case .string(let s): return [(s, .normal)]
        case .array(let a): return [(a.compactMap(\.stringValue).joined(separator: ", "), .normal)]
        case .number(let n): return [(DisplayFormat.number(n), .normal)]
        default: return nil
        }
    }

    /// How well a `_highlightResult` entry matched (0: not at all; a full match counts 100,
    /// a partial 50, plus a point per word), and its highlighted text (an array's matched
    /// elements joined).
    private static func matched(_ entry: JSONValue) -> (Int, String)? {
        func score(_ o: JSONObject) -> Int {
            let words = o["matchedWords"]?.arrayValue?.count ?? 0
            switch o["matchLevel"]?.stringValue {
            case "full": return 100 + words
            case "partial": return 50 + words
            default: return 0
            }
        }
        switch entry {
        case .object(let o):
            guard let value = o["value"]?.stringValue else { return nil }
            return (score(o), value)
        case .array(let items):
            let objects = items.compactMap(\.objectValue).filter { score($0) > 0 }
            guard let top = objects.map(score).max() else { return (0, "") }
            return (top, objects.compactMap { $0["value"]?.stringValue }.joined(separator: ", "))
        default:
            return nil
        }
    }

    /// `runs` from a little before the first highlighted run (at a word's start, after `…`),
    /// so that a match deep in a long text is in view.
    static func window(_ runs: [(String, Style)], lead: Int = 24) -> [(String, Style)] {
        guard let firstMatch = runs.firstIndex(where: { $0.1 == .highlight }) else { return runs }
        let before = runs[..<firstMatch].map(\.0).joined()
        guard before.count > lead else { return runs }
        var start = before.index(before.endIndex, offsetBy: -lead)
        while start < before.endIndex, before[start] != " " { start = before.index(after: start) }
        let kept = before[start...].drop { $0 == " " }
        return [("…" + kept, .normal)] + runs[firstMatch...]
    }
}
