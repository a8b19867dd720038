import FederatedSearchCore

/// One hit's highlights from Typesense, by field, turned into Algolia `_highlightResult` entries.
///
/// Typesense 0.24 sends them twice: `highlight` (an object by field) and `highlights` (an
/// array of objects with `field`); the object is read when present, else the array. An entry
/// gives `value` (the whole field, when asked for with `highlight_full_fields`) or `snippet`,
/// and `matched_tokens`. Entries of array fields (`values`/`snippets`) are not mapped.
struct TypesenseHighlights {
    private var byField: [String: (value: String, tokens: [String])] = [:]

    init(_ hit: JSONObject, at path: String) throws(SearchError) {
        if case .object(let o)? = hit["highlight"] {
            for e in o.entries {
                try add(e.key, e.value, at: "\(path).highlight.\(e.key)")
            }
        } else if let list = hit["highlights"] {
            guard case .array(let items) = list else { throw TypesenseResponse.bad("\(path).highlights", "expected an array") }
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item, case .string(let field)? = o["field"] else {
                    throw TypesenseResponse.bad("\(path).highlights[\(i)].field", "expected a string")
                }
                try add(field, item, at: "\(path).highlights[\(i)]")
            }
        }
    }

    private mutating func add(_ field: String, _ entry: JSONValue, at path: String) throws(SearchError) {
        guard case .object(let o) = entry else { throw TypesenseResponse.bad(path, "expected an object") }
        guard let text = o["value"]?.stringValue ?? o["snippet"]?.stringValue else { return }
        var tokens: [String] = []
        if let m = o["matched_tokens"] {
            guard case .array(let list) = m else { throw TypesenseResponse.bad("\(path).matched_tokens", "expected an array") }
            for t in list {
                if case .string(let s) = t, !tokens.contains(s.lowercased()) { tokens.append(s.lowercased()) }
            }
        }
        byField[field] = (text, tokens)
    }

    /// The `_highlightResult` entry of `field`, whose plain value is `plain`.
    func entry(_ field: String, plain: String, queryWords: Int) -> JSONValue {
        guard let h = byField[field], !h.tokens.isEmpty else {
            return ["value": .string(plain), "matchLevel": "none", "matchedWords": []]
        }
        let level = h.tokens.count >= queryWords ? "full" : "partial"
        return ["value": .string(h.value), "matchLevel": .string(level), "matchedWords": .array(h.tokens.map(JSONValue.string))]
    }
}
