import FederatedSearchCore

/// The searchables the daemon serves: an immutable snapshot, shared by every query.
public final class Catalog: Sendable {
    /// One searchable and its serving settings.
    public struct Entry: Sendable {
        public let id: SearcherId
        public let searchable: any Searchable
        public let kind: String
        /// The deadline used when the request sets none.
        public let defaultTimeout: Duration
    }

    /// The entries in config order.
    public let entries: [Entry]
    private let byName: [String: Int]

    public init(entries: [Entry]) {
        self.entries = entries
        var map: [String: Int] = [:]
        for (i, e) in entries.enumerated() { map[e.id.index] = i }
        self.byName = map
    }

    public func entry(_ name: String) -> Entry? { byName[name].map { entries[$0] } }

    /// Builds every searchable of a config. Errors name the searchable's JSON path.
    public static func build(_ config: DaemonConfig, registry: BackendRegistry) throws -> Catalog {
        var entries: [Entry] = []
        for s in config.searchables {
            guard let factory = registry.factory(for: s.kind) else {
                throw SearchError(
                    .invalidField,
                    "\(s.path).backend: unknown backend kind '\(s.kind)', expected one of \(registry.kinds.joined(separator: ", "))")
            }
            let base = config
            let context = BackendContext(
                name: s.name, options: s.options, path: s.path, resolvePath: { base.resolve($0) })
            let searchable = try factory(context)
            entries.append(Entry(
                id: SearcherId(index: s.name), searchable: searchable, kind: s.kind,
                defaultTimeout: .milliseconds(s.timeoutMs ?? config.defaultTimeoutMs)))
        }
        return Catalog(entries: entries)
    }
}
