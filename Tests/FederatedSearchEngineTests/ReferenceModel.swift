import FederatedSearchCore

/// A deliberately naive search engine for the property tests: it scans every document,
/// tokenises ASCII text by hand, and evaluates filters on the JSON. It shares no code with
/// the engine beyond the core model, so agreement means the engine's index structures give
/// the same answers as the definition.
struct ReferenceModel {
    let docs: [JSONObject]
    let searchable: [String]

    static func tokens(_ s: String) -> [String] {
        s.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Optimal-string-alignment distance, by the textbook table.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    static func budget(_ w: String, typos: Bool) -> Int {
        guard typos else { return 0 }
        return w.count >= 8 ? 2 : w.count >= 4 ? 1 : 0
    }

    /// Whether a token matches a query word under the engine's documented rules.
    static func wordMatches(_ word: String, token: String, prefix: Bool, typos: Bool) -> Bool {
        if token == word || (prefix && token.hasPrefix(word)) { return true }
        let k = budget(word, typos: typos)
        guard k > 0 else { return false }
        let w = Array(word)
        let t = Array(token)
        if distance(w, t) <= k { return true }
        if prefix { return (0...t.count).contains { distance(w, Array(t[0..<$0])) <= k } }
        return false
    }

    func texts(_ doc: JSONObject) -> [String] {
        var out: [String] = []
        for a in searchable {
            switch doc[a] {
            case .string(let s)?: out += Self.tokens(s)
            case .array(let items)?: for case .string(let s) in items { out += Self.tokens(s) }
            default: break
            }
        }
        return out
    }

    func matches(_ doc: JSONObject, query: String, typos: Bool) -> Bool {
        let words = Self.tokens(query)
        let tokens = texts(doc)
        for (i, w) in words.enumerated() {
            let prefix = i == words.count - 1
            if !tokens.contains(where: { Self.wordMatches(w, token: $0, prefix: prefix, typos: typos) }) { return false }
        }
        return true
    }

    static func facetValues(_ doc: JSONObject, _ attribute: String) -> [JSONValue] {
        switch doc[attribute] {
        case .array(let items)?: return items
        case let v?: return [v]
        case nil: return []
        }
    }

    static func spelling(_ v: JSONValue) -> String? {
        switch v {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n == n.rounded() ? String(Int(n)) : String(n)
        default: return nil
        }
    }

    func passes(_ doc: JSONObject, _ f: FilterExpression) -> Bool {
        switch f {
        case .and(let xs): return xs.allSatisfy { passes(doc, $0) }
        case .or(let xs): return xs.contains { passes(doc, $0) }
        case .not(let x): return !passes(doc, x)
        case .facet(let a, let v): return Self.facetValues(doc, a).contains { Self.spelling($0) == v }
        case .tag(let t): return Self.facetValues(doc, "_tags").contains { $0.stringValue == t }
        case .numeric(let a, let op, let v): return Self.facetValues(doc, a).contains { $0.numberValue.map { op.holds($0, v) } ?? false }
        case .range(let a, let lo, let hi):
            return Self.facetValues(doc, a).contains { $0.numberValue.map { lo <= $0 && $0 <= hi } ?? false }
        }
    }

    /// objectIDs matching the query and filter.
    func search(_ query: String, filter: FilterExpression?, typos: Bool) -> [JSONObject] {
        docs.filter { doc in matches(doc, query: query, typos: typos) && (filter.map { f in passes(doc, f) } ?? true) }
    }

    static func count(_ docs: [JSONObject], facet: String) -> [String: Int] {
        var out: [String: Int] = [:]
        for d in docs {
            for v in Set(facetValues(d, facet).compactMap(spelling)) { out[v, default: 0] += 1 }
        }
        return out
    }
}
