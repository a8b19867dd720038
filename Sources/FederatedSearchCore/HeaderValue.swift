/// One request header's value (or an API key): written in the config, or a secret read from an
/// environment variable or a file when the backend is built (and again on reload). The
/// caller reads the file (the core model does no I/O).
///
/// A secret's value is never written to logs or error messages: ``description`` redacts it,
/// and errors about it name the variable or file, not its content.
public struct HeaderValue: Sendable, Equatable, CustomStringConvertible {
    /// The value sent.
    public let value: String
    /// Whether it came from a secret source.
    public let isSecret: Bool

    public var description: String { isSecret ? "<redacted>" : value }

    /// Decodes `"text"`, `{"env": "NAME", "prefix": "Bearer "}` or `{"file": "path", "prefix": ...}`.
    /// A file's content (`readFile` of the path `resolvePath` makes of it; nil when it cannot be
    /// read) is used without its trailing newlines.
    public static func decode(
        _ v: JSONValue, path: String, environment: [String: String], resolvePath: (String) -> String,
        readFile: (String) -> [UInt8]?
    ) throws(SearchError) -> HeaderValue {
        switch v {
        case .string(let s):
            return HeaderValue(value: s, isSecret: false)
        case .object(let o):
            var r = FieldReader(o, path: path)
            let env = try r.string("env")
            let file = try r.string("file")
            let prefix = try r.string("prefix") ?? ""
            try r.rejectUnknownKeys()
            let secret: String
            switch (env, file) {
            case (let name?, nil):
                guard let s = environment[name], !s.isEmpty else {
                    throw SearchError(.invalidField, "\(r.path(of: "env")): environment variable \(name) is not set")
                }
                secret = s
            case (nil, let f?):
                let resolved = resolvePath(f)
                guard var bytes = readFile(resolved) else {
                    throw SearchError(.invalidField, "\(r.path(of: "file")): cannot read \(resolved)")
                }
                while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
                secret = String(decoding: bytes, as: UTF8.self)
            default:
                throw SearchError(.invalidField, "\(path): expected exactly one of env and file")
            }
            return HeaderValue(value: prefix + secret, isSecret: true)
        default:
            throw SearchError(.invalidField, "\(path): expected a string or an object with env or file, got \(v.typeName)")
        }
    }
}
