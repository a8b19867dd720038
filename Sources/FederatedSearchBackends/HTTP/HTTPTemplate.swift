import FederatedSearchCore

/// The values a request template can use, computed from one query.
///
/// Placeholders: `{query}`, `{page}` (from 0), `{page1}` (from 1), `{hitsPerPage}`, `{offset}`
/// (`page × hitsPerPage`), `{filters}` (every filter parameter combined, in Algolia's
/// `filters` syntax; empty without filters), `{facets}` (comma-separated in text, an array
/// when a body string is exactly `"{facets}"`). `{{` and `}}` are literal braces.
public struct TemplateValues: Sendable, Equatable {
    public var values: [String: JSONValue]

    /// Every placeholder name.
    public static let names: Set<String> = ["query", "page", "page1", "hitsPerPage", "offset", "filters", "facets"]

    public init(query: SearchQuery) {
        let p = query.parameters
        let offset = p.offset ?? p.page * p.hitsPerPage
        let hitsPerPage = p.length ?? p.hitsPerPage
        values = [
            "query": .string(query.text), "page": .number(Double(p.page)), "page1": .number(Double(p.page + 1)),
            "hitsPerPage": .number(Double(hitsPerPage)), "offset": .number(Double(offset)),
            "filters": .string(p.filter?.description ?? ""), "facets": .array(p.facets.map { .string($0) }),
        ]
    }

    /// A value as text (numbers without a fraction, arrays comma-separated).
    func text(_ name: String) -> String {
        switch values[name] {
        case .string(let s)?: return s
        case .array(let xs)?: return xs.map { $0.stringValue ?? JSONWriter.string($0) }.joined(separator: ",")
        case let v?: return JSONWriter.string(v)
        case nil: return ""
        }
    }
}

/// A string with `{placeholder}` slots, parsed once at load time.
public struct StringTemplate: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case literal(String)
        case slot(String)
    }
    let pieces: [Piece]

    /// Parses `text`; an unknown or unclosed placeholder is an error naming `path`.
    public init(_ text: String, path: String) throws(SearchError) {
        var pieces: [Piece] = []
        var literal = ""
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            let next = text.index(after: i)
            if c == "{" || c == "}", next < text.endIndex, text[next] == c {
                literal.append(c)
                i = text.index(after: next)
            } else if c == "{" {
                guard let close = text[next...].firstIndex(of: "}") else {
                    throw SearchError(.invalidField, "\(path): unclosed '{' in '\(text)'")
                }
                let name = String(text[next..<close])
                guard TemplateValues.names.contains(name) else {
                    throw SearchError(
                        .invalidField,
                        "\(path): unknown placeholder {\(name)}, expected one of "
                            + TemplateValues.names.sorted().map { "{\($0)}" }.joined(separator: ", "))
                }
                if !literal.isEmpty {
                    pieces.append(.literal(literal))
                    literal = ""
                }
                pieces.append(.slot(name))
                i = text.index(after: close)
            } else {
                literal.append(c)
                i = next
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        self.pieces = pieces
    }

    /// The single placeholder this template consists of, if it is exactly one.
    var soleSlot: String? {
        if pieces.count == 1, case .slot(let name) = pieces[0] { return name }
        return nil
    }

    /// Fills the slots, passing each value's text through `encode` (literals are kept as written).
    public func render(_ values: TemplateValues, encode: (String) -> String = { $0 }) -> String {
        pieces.map { piece in
            switch piece {
            case .literal(let s): return s
            case .slot(let name): return encode(values.text(name))
            }
        }.joined()
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (the core's encoder,
    /// which also writes the `params` string of responses).
    public static func percentEncode(_ s: String) -> String { SearchParameters.percentEncode(s) }
}

/// A JSON body template: any JSON value whose strings may hold placeholders. A string that is
/// exactly one placeholder becomes the value's JSON type (`"{hitsPerPage}"` → `20`,
/// `"{facets}"` → `["genre"]`); other strings are filled in as text.
public struct BodyTemplate: Sendable, Equatable {
    indirect enum Node: Sendable, Equatable {
        case constant(JSONValue)
        case string(StringTemplate)
        case array([Node])
        case object([(String, Node)])

        static func == (a: Node, b: Node) -> Bool {
            switch (a, b) {
            case (.constant(let x), .constant(let y)): return x == y
            case (.string(let x), .string(let y)): return x == y
            case (.array(let x), .array(let y)): return x == y
            case (.object(let x), .object(let y)): return x.elementsEqual(y) { $0.0 == $1.0 && $0.1 == $1.1 }
            default: return false
            }
        }
    }
    let root: Node

    public init(_ value: JSONValue, path: String) throws(SearchError) {
        func node(_ v: JSONValue, _ p: String) throws(SearchError) -> Node {
            switch v {
            case .string(let s): return .string(try StringTemplate(s, path: p))
            case .array(let xs):
                var out: [Node] = []
                for (i, x) in xs.enumerated() { out.append(try node(x, "\(p)[\(i)]")) }
                return .array(out)
            case .object(let o):
                var out: [(String, Node)] = []
                for e in o.entries { out.append((e.key, try node(e.value, "\(p).\(e.key)"))) }
                return .object(out)
            default: return .constant(v)
            }
        }
        root = try node(value, path)
    }

    /// The body for one query.
    public func render(_ values: TemplateValues) -> JSONValue {
        func render(_ n: Node) -> JSONValue {
            switch n {
            case .constant(let v): return v
            case .string(let t):
                if let name = t.soleSlot, let v = values.values[name] { return v }
                return .string(t.render(values))
            case .array(let xs): return .array(xs.map(render))
            case .object(let kvs): return .object(JSONObject(kvs.map { ($0.0, render($0.1)) }))
            }
        }
        return render(root)
    }
}
