import FederatedSearchCore

/// One book of the example shelf, read from an NDJSON line such as
/// `{"objectID": "b1", "title": "Dune", "author": "Frank Herbert", "genre": "SF", "year": 1965}`.
public struct Book: Sendable, Equatable {
    public var objectID: String
    public var fields: JSONObject

    public init(objectID: String, fields: JSONObject) {
        self.objectID = objectID
        self.fields = fields
    }

    /// Parses a book from its JSON object; `path` names it in errors.
    public init(json: JSONValue, path: String) throws(SearchError) {
        guard let object = json.objectValue else {
            throw SearchError(.invalidField, "\(path): expected an object, got \(json.typeName)")
        }
        guard let id = object["objectID"]?.stringValue else {
            throw SearchError(.invalidField, "\(path).objectID: expected a string")
        }
        self.init(objectID: id, fields: object)
    }

    /// The lower-cased words of the searchable fields, title first.
    func words(in attributes: [String]) -> [String] {
        attributes.flatMap { a in
            (fields[a]?.stringValue ?? "").lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
        }
    }

    /// Whether the book satisfies `filter` (facet values compare by their JSON spelling).
    func matches(_ filter: FilterExpression?) -> Bool {
        guard let filter else { return true }
        switch filter {
        case .and(let xs): return xs.allSatisfy { matches($0) }
        case .or(let xs): return xs.contains { matches($0) }
        case .not(let x): return !matches(x)
        case .facet(let a, let v): return values(of: a).contains(v)
        case .numeric(let a, let op, let v): return numbers(of: a).contains { op.holds($0, v) }
        case .range(let a, let lo, let hi): return numbers(of: a).contains { (lo...hi).contains($0) }
        case .tag(let t): return values(of: "_tags").contains(t)
        }
    }

    /// The facet values of `attribute` in their JSON spelling (arrays give one value each).
    func values(of attribute: String) -> [String] {
        func spell(_ v: JSONValue) -> [String] {
            switch v {
            case .string(let s): return [s]
            case .array(let xs): return xs.flatMap(spell)
            case .null, .object: return []
            default: return [JSONWriter.string(v)]
            }
        }
        return fields[attribute].map(spell) ?? []
    }

    func numbers(of attribute: String) -> [Double] {
        switch fields[attribute] {
        case .number(let n)?: return [n]
        case .array(let xs)?: return xs.compactMap(\.numberValue)
        default: return []
        }
    }
}
