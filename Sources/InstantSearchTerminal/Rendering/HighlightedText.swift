import FederatedSearchCore

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
}
