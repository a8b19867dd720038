import FederatedSearchCore

/// Request ids as the daemon keeps them: a string, whether the client sent a string or an
/// integer. An integer id (`"id": 5`) is kept as its digits after U+0001, a character no
/// string id may hold (``decode(_:path:)`` refuses control characters in ids), so `5` and
/// `"5"` are two ids, and each is written back with the JSON type it came with.
public enum RequestID {
    /// Marks an id that came as an integer.
    static let integerMarker: Character = "\u{1}"

    /// The id for a JSON `id` (or `target`) value; nil for none. Throws for anything but a
    /// string without control characters or an integer of magnitude below 9e15.
    public static func decode(_ value: JSONValue?, path: String) throws(SearchError) -> String? {
        switch value {
        case nil: return nil
        case .string(let s)?:
            guard !s.utf8.contains(where: { $0 < 0x20 }) else {
                throw SearchError(.invalidField, "\(path): control characters are not allowed in an id")
            }
            return s
        case .number? where value?.intValue != nil:
            return value?.intValue.map { String(integerMarker) + String($0) }
        case .number(let n)?:
            // Not an integer, or too large for one (1e300 would trap the conversion).
            throw SearchError(.invalidField, "\(path): expected a string or an integer of magnitude below 9e15, got \(n)")
        case let other?:
            throw SearchError(.invalidField, "\(path): expected a string or an integer, got \(other.typeName)")
        }
    }

    /// The id as it is written in frames: an integer if it came as one, else a string.
    public static func json(_ id: String) -> JSONValue {
        if let digits = integerDigits(id), let n = Int(digits) { return .number(Double(n)) }
        return .string(id)
    }

    /// Writes ``json(_:)``'s text.
    static func write(_ id: String, into out: inout [UInt8]) {
        if let digits = integerDigits(id) { out.append(contentsOf: digits.utf8) } else { JSONWriter.writeString(id, into: &out) }
    }

    /// The id as its text, for log fields (`5`, or `abc`): `journalctl REQUEST_ID=5` finds it.
    public static func text(_ id: String) -> String { integerDigits(id).map(String.init) ?? id }

    /// The id as people read it in messages (`5`, or `'abc'`).
    public static func display(_ id: String) -> String { integerDigits(id).map(String.init) ?? "'\(id)'" }

    /// The integer's digits, if the id came as an integer.
    private static func integerDigits(_ id: String) -> Substring? {
        id.first == integerMarker ? id.dropFirst() : nil
    }
}
