import Foundation
import FederatedSearchCore

/// One request header's value: written in the config, or a secret read from an environment
/// variable or a file when the backend is built (and again on reload).
///
/// A secret's value is never written to logs or error messages: ``description`` redacts it,
/// and errors about it name the variable or file, not its content.
public struct HeaderValue: Sendable, Equatable, CustomStringConvertible {
    /// The value sent.
    package let value: String
    /// Whether it came from a secret source.
    public let isSecret: Bool

    public var description: String { isSecret ? "<redacted>" : value }

    /// Decodes `"text"`, `{"env": "NAME", "prefix": "Bearer "}` or `{"file": "path", "prefix": ...}`.
    /// A file's content is used without its trailing newline.
    public static func decode(
        _ v: JSONValue, path: String, environment: [String: String], resolvePath: (String) -> String
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
                guard let data = FileManager.default.contents(atPath: resolved) else {
                    throw SearchError(.invalidField, "\(r.path(of: "file")): cannot read \(resolved)")
                }
                secret = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            default:
                throw SearchError(.invalidField, "\(path): expected exactly one of env and file")
            }
            return HeaderValue(value: prefix + secret, isSecret: true)
        default:
            throw SearchError(.invalidField, "\(path): expected a string or an object with env or file, got \(v.typeName)")
        }
    }
}
