import Foundation
import FederatedSearchCore

/// The HTTP listener's configuration, the config's `http` object (no object: no listener):
///
///     "http": {"listen": "127.0.0.1:7700", "corsOrigins": ["https://app.example.com"],
///              "keys": [{"value": {"env": "FEDSEARCH_SEARCH_KEY"}, "acl": ["search"], "indexes": ["movies*"]}]}
///
/// `listen` is `HOST:PORT` (`[::1]:7700` for IPv6) or the path of a Unix socket (starting
/// with `/` or `.`). With no `keys`, whoever reaches the listener may do everything.
public struct HTTPConfig: Sendable {
    /// Where the listener accepts connections.
    public enum Address: Sendable, Equatable, CustomStringConvertible {
        case tcp(host: String, port: UInt16)
        case unix(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
            case .unix(let path): "unix:\(path)"
            }
        }

        /// Whether only this machine can reach the address (a Unix socket, or a loopback host).
        public var isLocalOnly: Bool {
            switch self {
            case .unix: true
            case .tcp(let host, _): Self.isLoopback(host)
            }
        }

        /// Whether a host name (no port, no brackets) names this machine's loopback.
        public static func isLoopback<S: StringProtocol>(_ name: S) -> Bool {
            name == "localhost" || name == "::1" || name.hasPrefix("127.")
        }
    }

    public var listen: Address
    /// Origins allowed to call the API from a page served elsewhere (`*`: any). Empty: none,
    /// so only same-origin pages (the dashboard) and non-browser clients.
    public var corsOrigins: [String] = []
    /// API keys; empty: no key is asked for.
    public var keys: [APIKey] = []
    /// Whether `/` serves the web dashboard.
    public var dashboard = true
    /// File mode of a Unix socket listener.
    public var socketMode: UInt32 = 0o660

    public init(listen: Address) { self.listen = listen }

    /// Decodes the config's `http` object; `resolve` makes a relative path absolute.
    package static func decode(_ object: JSONObject, resolve: (String) -> String) throws(SearchError) -> HTTPConfig {
        var r = FieldReader(object, path: "http")
        let listenText = try r.string("listen") ?? ""
        var config = HTTPConfig(listen: try address(listenText, path: "http.listen", resolve: resolve))
        if let origins = try r.stringArray("corsOrigins") { config.corsOrigins = origins }
        if let dashboard = try r.bool("dashboard") { config.dashboard = dashboard }
        if let modeText = try r.string("socketMode") {
            guard let mode = UInt32(modeText, radix: 8), mode <= 0o777 else {
                throw SearchError(.invalidField, "http.socketMode: expected an octal file mode like \"0660\", got '\(modeText)'")
            }
            config.socketMode = mode
        }
        if let keys = r.value("keys") {
            guard case .array(let items) = keys else {
                throw SearchError(.invalidField, "http.keys: expected an array, got \(keys.typeName)")
            }
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item else {
                    throw SearchError(.invalidField, "http.keys[\(i)]: expected an object, got \(item.typeName)")
                }
                var key = try APIKey.decode(o, path: "http.keys[\(i)]", resolve: resolve)
                key.position = i
                config.keys.append(key)
            }
        }
        try r.rejectUnknownKeys()
        return config
    }

    /// `HOST:PORT`, `[V6]:PORT` or a socket path.
    static func address(_ text: String, path: String, resolve: (String) -> String) throws(SearchError) -> Address {
        if text.hasPrefix("/") || text.hasPrefix(".") { return .unix(path: resolve(text)) }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw addressError(text, path) }
            portText = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw addressError(text, path) }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let port = UInt16(portText) else { throw addressError(text, path) }
        return .tcp(host: String(host), port: port)
    }

    private static func addressError(_ text: String, _ path: String) -> SearchError {
        SearchError(.invalidField, "\(path): expected HOST:PORT (like 127.0.0.1:7700) or a socket path, got '\(text)'")
    }
}

/// An API key, as Algolia's restricted keys: what it may do (`acl`) on which indices.
public struct APIKey: Sendable {
    /// The operations a key may be granted (Algolia's ACL names).
    public enum Right: String, Sendable, CaseIterable {
        case search, browse, addObject, deleteObject, deleteIndex, settings, editSettings, listIndexes
    }

    /// The secret (never logged: its description is redacted).
    package let value: HeaderValue
    public let acl: Set<Right>
    /// Index name patterns (`*` anywhere matches any run of characters); empty: every index.
    public let indexes: [String]
    /// The operator's note about the key (shown in logs instead of the key).
    public let description: String
    /// Its place in `http.keys` (what tells two keys apart without their values).
    public internal(set) var position = 0

    package static func decode(_ object: JSONObject, path: String, resolve: (String) -> String) throws(SearchError) -> APIKey {
        var r = FieldReader(object, path: path)
        let value = try HeaderValue.decode(
            try r.required("value"), path: "\(path).value", environment: ProcessInfo.processInfo.environment,
            resolvePath: resolve, readFile: { FileManager.default.contents(atPath: $0).map(Array.init) })
        guard !value.value.isEmpty else { throw SearchError(.invalidField, "\(path).value: must not be empty") }
        var acl: Set<Right> = []
        for (i, name) in (try r.stringArray("acl") ?? ["search"]).enumerated() {
            guard let right = Right(rawValue: name) else {
                let known = Right.allCases.map(\.rawValue).joined(separator: ", ")
                throw SearchError(.invalidField, "\(path).acl[\(i)]: expected one of \(known), got '\(name)'")
            }
            acl.insert(right)
        }
        let indexes = try r.stringArray("indexes") ?? []
        let description = try r.string("description") ?? "key \(path)"
        try r.rejectUnknownKeys()
        return APIKey(value: value, acl: acl, indexes: indexes, description: description)
    }

    /// Whether the key may use `right` on index `name` (nil: an operation on no one index).
    public func allows(_ right: Right, index name: String?) -> Bool {
        guard acl.contains(right) else { return false }
        guard let name, !indexes.isEmpty else { return true }
        return indexes.contains { Self.matches(name, pattern: $0) }
    }

    /// Whether `name` matches `pattern`, where `*` matches any run of characters.
    package static func matches(_ name: String, pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return name == pattern }
        var rest = Substring(name)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let found = rest.range(of: part) else { return false }
            rest = rest[found.upperBound...]
        }
        return rest.hasSuffix(parts[parts.count - 1]) && rest.count >= parts[parts.count - 1].count
    }

    /// Whether `candidate` is this key's secret (compared in time independent of where they differ).
    package func isValue(_ candidate: String) -> Bool {
        Self.constantTimeEqual(Array(value.value.utf8), Array(candidate.utf8))
    }

    /// Whether `a` and `b` are equal, compared in time independent of where they differ.
    package static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<min(a.count, b.count) { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
