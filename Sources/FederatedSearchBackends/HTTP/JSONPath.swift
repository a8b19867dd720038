import FederatedSearchCore

/// A path into a JSON value, written `results.items`, `hits[0].id` or `data["total count"]`.
///
/// Used by the `http` backend's result mapping; a failed lookup names the path that failed.
public struct JSONPath: Sendable, Equatable, CustomStringConvertible {
    /// One step: an object member or an array element.
    public enum Component: Sendable, Equatable {
        case key(String)
        case index(Int)
    }

    public let components: [Component]
    /// The path as written in the config.
    public let description: String

    /// The path of one object member.
    public init(key: String) {
        components = [.key(key)]
        description = key
    }

    /// Parses a path; the empty string is the value itself.
    public init(_ text: String) throws(SearchError) {
        description = text
        var out: [Component] = []
        let chars = Array(text)
        var i = 0
        func fail(_ why: String) -> SearchError { SearchError(.invalidField, "'\(text)': \(why) at character \(i + 1)") }
        while i < chars.count {
            if chars[i] == "[" {
                guard let close = chars[i...].firstIndex(of: "]") else { throw fail("unclosed '['") }
                let inner = String(chars[(i + 1)..<close])
                if inner.hasPrefix("\""), inner.hasSuffix("\""), inner.count >= 2 {
                    out.append(.key(String(inner.dropFirst().dropLast())))
                } else if let n = Int(inner), n >= 0 {
                    out.append(.index(n))
                } else {
                    throw fail("expected an index or a quoted key in brackets")
                }
                i = close + 1
                if i < chars.count, chars[i] == "." {
                    i += 1
                    if i == chars.count { throw fail("trailing '.'") }
                }
            } else {
                var key = ""
                while i < chars.count, chars[i] != ".", chars[i] != "[" {
                    key.append(chars[i])
                    i += 1
                }
                guard !key.isEmpty else { throw fail("empty key") }
                out.append(.key(key))
                if i < chars.count, chars[i] == "." {
                    i += 1
                    if i == chars.count { throw fail("trailing '.'") }
                }
            }
        }
        components = out
    }

    /// The value at this path in `root`, or nil when a step is missing (or JSON null).
    public func lookup(_ root: JSONValue) -> JSONValue? {
        var v = root
        for c in components {
            switch (c, v) {
            case (.key(let k), .object(let o)):
                guard let next = o[k] else { return nil }
                v = next
            case (.index(let n), .array(let a)):
                guard n < a.count else { return nil }
                v = a[n]
            default: return nil
            }
        }
        return v == .null ? nil : v
    }

    /// This path written under `prefix` (for messages: `hits[2]` + `id` = `hits[2].id`).
    public func under(_ prefix: String) -> String {
        if description.isEmpty { return prefix }
        if prefix.isEmpty { return description }
        return description.hasPrefix("[") ? prefix + description : "\(prefix).\(description)"
    }
}
