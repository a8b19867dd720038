/// Reads typed fields out of a JSON object, throwing errors that name the field's JSON path.
///
/// Used for requests and configs alike, so every "wrong type" message has the same shape:
/// `params.hitsPerPage: expected an integer, got string`.
public struct FieldReader {
    /// The object being read.
    public let object: JSONObject
    /// The JSON path of the object (`""` for the root, else `params` or `indices[2]`).
    public let path: String
    /// Which entries of `object` an accessor asked for, by position: bit i for the first 64,
    /// the set beyond (a request is read key by key, tens of lookups, and hashing each key
    /// into a set of names cost more than the rest of decoding).
    private var seenLow: UInt64 = 0
    private var seenBeyond: Set<Int> = []
    /// Entries no accessor has asked for yet.
    private var unseen: Int
    /// Whether the reader's user asks for each key at most once: then, once every entry has
    /// been read, a lookup is a miss without comparing keys. Request parameters are read by
    /// trying some fifty names, and most requests carry two or three.
    private let readsEachKeyOnce: Bool

    /// `readsEachKeyOnce`: the caller promises to ask for each key at most once (checked in
    /// debug builds), which lets lookups stop early.
    public init(_ object: JSONObject, path: String = "", readsEachKeyOnce: Bool = false) {
        self.object = object
        self.path = path
        self.readsEachKeyOnce = readsEachKeyOnce
        unseen = object.entries.count
    }

    /// The path of a member of this object.
    public func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func typeError(_ key: String, _ expected: String, _ got: JSONValue) -> SearchError {
        SearchError(.invalidField, "\(path(of: key)): expected \(expected), got \(got.typeName)")
    }

    /// The raw value of `key`, or nil when absent or JSON null.
    public mutating func value(_ key: String) -> JSONValue? {
        if readsEachKeyOnce && unseen == 0 {
            assert(!object.entries.contains { $0.key == key }, "FieldReader: '\(key)' read twice by a reader that reads each key once")
            return nil
        }
        guard let i = object.entries.firstIndex(where: { $0.key == key }) else { return nil }
        let firstLook = i < 64 ? seenLow & (1 << UInt64(i)) == 0 : !seenBeyond.contains(i)
        assert(firstLook || !readsEachKeyOnce, "FieldReader: '\(key)' read twice by a reader that reads each key once")
        if firstLook {
            unseen -= 1
            if i < 64 { seenLow |= 1 << UInt64(i) } else { seenBeyond.insert(i) }
        }
        let v = object.entries[i].value
        if case .null = v { return nil }
        return v
    }

    /// A required value.
    public mutating func required(_ key: String) throws(SearchError) -> JSONValue {
        guard let v = value(key) else { throw SearchError(.missingField, "\(path(of: key)): required field is missing") }
        return v
    }

    public mutating func string(_ key: String) throws(SearchError) -> String? {
        guard let v = value(key) else { return nil }
        guard case .string(let s) = v else { throw typeError(key, "a string", v) }
        return s
    }

    /// A string of at most `maxBytes` UTF-8 bytes (a longer one is refused, naming the field:
    /// a short request must not be able to make a huge answer).
    public mutating func string(_ key: String, maxBytes: Int) throws(SearchError) -> String? {
        guard let s = try string(key) else { return nil }
        guard s.utf8.count <= maxBytes else {
            throw SearchError(.invalidField, "\(path(of: key)): \(s.utf8.count) bytes; at most \(maxBytes)")
        }
        return s
    }

    public mutating func requiredString(_ key: String) throws(SearchError) -> String {
        let v = try required(key)
        guard case .string(let s) = v else { throw typeError(key, "a string", v) }
        return s
    }

    public mutating func bool(_ key: String) throws(SearchError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard case .bool(let b) = v else { throw typeError(key, "a boolean", v) }
        return b
    }

    public mutating func number(_ key: String) throws(SearchError) -> Double? {
        guard let v = value(key) else { return nil }
        guard case .number(let n) = v else { throw typeError(key, "a number", v) }
        return n
    }

    /// An integer within `range`.
    public mutating func int(_ key: String, in range: ClosedRange<Int>) throws(SearchError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let i = v.intValue else { throw typeError(key, "an integer", v) }
        guard range.contains(i) else {
            throw SearchError(.invalidField, "\(path(of: key)): \(i) is out of range \(range.lowerBound)...\(range.upperBound)")
        }
        return i
    }

    /// An array of strings; a single string is accepted as a one-element array when `allowSingle`.
    public mutating func stringArray(_ key: String, allowSingle: Bool = false) throws(SearchError) -> [String]? {
        guard let v = value(key) else { return nil }
        if allowSingle, case .string(let s) = v { return [s] }
        guard case .array(let items) = v else { throw typeError(key, "an array of strings", v) }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case .string(let s) = item else {
                throw SearchError(.invalidField, "\(path(of: key))[\(i)]: expected a string, got \(item.typeName)")
            }
            out.append(s)
        }
        return out
    }

    public mutating func objectValue(_ key: String) throws(SearchError) -> JSONObject? {
        guard let v = value(key) else { return nil }
        guard case .object(let o) = v else { throw typeError(key, "an object", v) }
        return o
    }

    /// The keys no accessor asked for, in order.
    public func unreadKeys() -> [String] {
        object.entries.enumerated().filter { i, _ in !(i < 64 ? seenLow & (1 << UInt64(i)) != 0 : seenBeyond.contains(i)) }.map(
            \.element.key)
    }

    /// Throws `unknown_field` for the first key that no accessor asked for.
    public func rejectUnknownKeys() throws(SearchError) {
        for (i, e) in object.entries.enumerated() where !(i < 64 ? seenLow & (1 << UInt64(i)) != 0 : seenBeyond.contains(i)) {
            throw SearchError(.unknownField, "\(path(of: e.key)): unknown field")
        }
    }
}
