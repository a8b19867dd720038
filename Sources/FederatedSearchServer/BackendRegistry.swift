import FederatedSearchCore

/// Builds a searchable of one backend kind from its config.
public typealias BackendFactory = @Sendable (BackendContext) throws -> any Searchable

/// What a backend factory gets: the searchable's name, its options and where to find files.
public struct BackendContext: Sendable {
    public var name: String
    /// The backend's options from the config (without `backend` and `timeoutMs`).
    public var options: JSONObject
    /// The JSON path of the searchable's config object, for error messages.
    public var path: String
    /// Resolves a path from the config against the config file's folder.
    public var resolvePath: @Sendable (String) -> String
    /// The config's `dataDir`, where durable indices keep their stores (nil: none).
    public var dataDirectory: String? = nil
    /// The deadline of its searches (`timeoutMs`, else the config's `defaultTimeoutMs`).
    public var timeout: Duration = .seconds(1)

}

/// The backend kinds the daemon can build, by the name used in the config's `backend` field.
///
/// The daemon's `BackendRegistry.standard` holds the kinds shipped to users; tests and embedders
/// register more (a Swift-coded backend is named in the config like the built-in ones).
public struct BackendRegistry: Sendable {
    private var factories: [String: BackendFactory] = [:]

    public init() {}

    /// The daemon's own kind alone, `embedded`, which the server core builds without any I/O
    /// module; the daemon's `standard` registry adds the network kinds.
    public static var embedded: BackendRegistry {
        var r = BackendRegistry()
        r.register("embedded", EmbeddedBackend.make)
        return r
    }

    /// Adds or replaces a kind.
    public mutating func register(_ kind: String, _ factory: @escaping BackendFactory) { factories[kind] = factory }

    /// The registered kind names, sorted.
    public var kinds: [String] { factories.keys.sorted() }

    package func factory(for kind: String) -> BackendFactory? { factories[kind] }
}
