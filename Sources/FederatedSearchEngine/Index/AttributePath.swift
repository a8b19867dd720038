import FederatedSearchCore

/// A dotted attribute path (`author.name`), split once, that reads the values it names from
/// a document: arrays are flattened (`cast` gives each actor) and nested objects walked.
struct AttributePath: Sendable, Equatable {
    let name: String
    let components: [String]

    init(_ name: String) {
        self.name = name
        components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The raw value at the path: an object member, or for a path through arrays of objects
    /// the array of the members found.
    func value(in doc: JSONObject) -> JSONValue? {
        if let v = doc[name] { return v }  // a top-level key that contains dots
        guard components.count > 1 else { return nil }
        var current: [JSONValue] = [.object(doc)]
        for c in components {
            var next: [JSONValue] = []
            for v in current { Self.members(of: v, named: c, into: &next) }
            if next.isEmpty { return nil }
            current = next
        }
        return current.count == 1 ? current[0] : .array(current)
    }

    /// Every scalar leaf at the path (strings, numbers, booleans), arrays flattened, in order.
    func leaves(in doc: JSONObject) -> [JSONValue] {
        var out: [JSONValue] = []
        if let v = value(in: doc) { Self.flatten(v, into: &out) }
        return out
    }

    /// Calls `body` for each string leaf (numbers in their JSON spelling), in order;
    /// `element` counts array elements so the caller can leave a gap between them.
    func forEachText(in doc: JSONObject, _ body: (String, Int) -> Void) {
        guard let v = doc[name] ?? value(in: doc) else { return }
        switch v {
        case .string(let s): body(s, 0)
        default:
            var leaves: [JSONValue] = []
            Self.flatten(v, into: &leaves)
            var element = 0
            for leaf in leaves {
                if let s = Self.text(of: leaf) {
                    body(s, element)
                    element += 1
                }
            }
        }
    }

    /// A leaf as text: strings as they are, numbers in JSON spelling; booleans and null are not text.
    static func text(of leaf: JSONValue) -> String? {
        switch leaf {
        case .string(let s): return s
        case .number(let n):
            var out: [UInt8] = []
            JSONWriter.writeNumber(n, into: &out)
            return String(decoding: out, as: UTF8.self)
        default: return nil
        }
    }

    /// A leaf as a facet value: strings as they are, numbers in JSON spelling, booleans as `true`/`false`.
    static func facetValue(of leaf: JSONValue) -> String? {
        if case .bool(let b) = leaf { return b ? "true" : "false" }
        return text(of: leaf)
    }

    private static func members(of v: JSONValue, named c: String, into out: inout [JSONValue]) {
        switch v {
        case .object(let o): if let m = o[c], m != .null { out.append(m) }
        case .array(let items): for i in items { members(of: i, named: c, into: &out) }
        default: break
        }
    }

    private static func flatten(_ v: JSONValue, into out: inout [JSONValue]) {
        switch v {
        case .null, .object: break
        case .array(let items): for i in items { flatten(i, into: &out) }
        default: out.append(v)
        }
    }
}
