import Foundation
import FederatedSearchCore

/// What a backend is built from: the searchable's name and its options from the JSON config.
///
/// The daemon's `BackendContext` carries the same fields; this copy lets backends be built and
/// tested without the daemon module (which depends on this one).
public struct BackendConfig: Sendable {
    /// The searchable's name in the config (and in frames).
    public var name: String
    /// The backend's options: the searchable's config object without `backend`, `timeoutMs`
    /// and `access`.
    public var options: JSONObject
    /// The JSON path of the searchable's config object, for error messages.
    public var path: String
    /// Resolves a path from the config against the config file's folder.
    public var resolvePath: @Sendable (String) -> String

    public init(
        name: String, options: JSONObject, path: String = "", resolvePath: @escaping @Sendable (String) -> String = { $0 }
    ) {
        self.name = name
        self.options = options
        self.path = path
        self.resolvePath = resolvePath
    }
}

extension BackendConfig {
    /// A secret file's bytes for ``HeaderValue/decode(_:path:environment:resolvePath:readFile:)``;
    /// nil when it cannot be read.
    public static func readFile(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map(Array.init) }
}
