/// A JSON value as the daemon reads and writes it.
///
/// Objects keep their keys in document order (see ``JSONObject``), so a hit is returned with
/// its attributes in the order they were indexed. Numbers are `Double`, as in JSON itself;
/// integral values within 2^53 are written without a fraction.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The number, if this is a number.
    public var numberValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The array, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The number as an exact integer, if it is one.
    public var intValue: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9.0e15 else { return nil }
        return Int(n)
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Entry(key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

/// A JSON object that keeps its keys in insertion order.
///
/// Lookups are linear, which is faster than hashing for the small objects of requests and
/// documents (tens of keys). A later duplicate key replaces the earlier value in place.
public struct JSONObject: Sendable, Equatable, Sequence {
    /// One key and its value.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The entries in order.
    public private(set) var entries: [Entry]

    public init() { entries = [] }

    /// An empty object with room for `capacity` entries (builders that know their size
    /// append without growing the storage).
    public init(capacity: Int) {
        entries = []
        entries.reserveCapacity(capacity)
    }

    public init(_ entries: [Entry]) {
        self.entries = []
        self.entries.reserveCapacity(entries.count)
        for e in entries { self[e.key] = e.value }
    }

    /// Builds an object from key-value pairs, in order.
    public init(_ pairs: [(String, JSONValue)]) {
        self.init(pairs.map { Entry(key: $0.0, value: $0.1) })
    }

    /// Appends without checking for a duplicate key; for builders that know keys are unique.
    public mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        entries.append(Entry(key: key, value: value))
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    /// The value for `key`; setting `nil` removes the key.
    public subscript(key: String) -> JSONValue? {
        get {
            for e in entries where e.key == key { return e.value }
            return nil
        }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let v = newValue { entries[i].value = v } else { entries.remove(at: i) }
            } else if let v = newValue {
                entries.append(Entry(key: key, value: v))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Entry(key: $0.0, value: $0.1) })
    }
}
