import FederatedSearchCore
import FederatedSearchProtocol

/// The searchables the daemon serves: an immutable snapshot, shared by every query.
public final class Catalog: Sendable {
    /// One searchable and its serving settings.
    public struct Entry: Sendable {
        public let id: SearcherId
        public let searchable: any Searchable
        public let kind: String
        /// The deadline used when the request sets none.
        public let defaultTimeout: Duration
        /// Identifies the config and data it was built from (a reload keeps the entry if equal).
        public let fingerprint: String
        /// Who may search and write it.
        public let access: AccessPolicy
        /// How often live subscriptions search it again (`pollIntervalMs`); nil: only when
        /// it says it changed (a durable index), or never.
        public let pollInterval: Duration?

        package init(
            id: SearcherId, searchable: any Searchable, kind: String, defaultTimeout: Duration, fingerprint: String,
            access: AccessPolicy, pollInterval: Duration? = nil
        ) {
            self.id = id
            self.searchable = searchable
            self.kind = kind
            self.defaultTimeout = defaultTimeout
            self.fingerprint = fingerprint
            self.access = access
            self.pollInterval = pollInterval
        }
    }

    /// The fingerprint of an index made by `createIndex` (not in the config; a reload keeps it).
    package static let createdFingerprint = "createIndex"

    /// The entries in config order, then the indices made by `createIndex`.
    public let entries: [Entry]
    private let byName: [String: Int]

    public init(entries: [Entry]) {
        self.entries = entries
        var map: [String: Int] = [:]
        for (i, e) in entries.enumerated() { map[e.id.index] = i }
        self.byName = map
    }

    public func entry(_ name: String) -> Entry? { byName[name].map { entries[$0] } }

    /// The refusal of a name that is not an index `peer` may know of: the indices it may know
    /// of, and the one it probably meant (the same answer for a hidden index as for a missing one).
    package func unknownIndex(_ name: String, path: String, peer: PeerIdentity?) -> SearchError {
        let visible = entries.filter { $0.access.maySee(peer) }.map(\.id.index)
        var message = "\(path): no index named '\(name)'"
        if let meant = NameSuggestion.closest(to: name, among: visible) { message += "; did you mean '\(meant)'?" }
        message += visible.isEmpty ? " (this peer may use no index)" : " (indices: \(visible.joined(separator: ", ")))"
        return SearchError(.unknownIndex, message)
    }

    /// The entry named `name` if `peer` may know it exists (see ``AccessPolicy/maySee(_:)``).
    package func entry(_ name: String, visibleTo peer: PeerIdentity?) -> Entry? {
        guard let e = entry(name), e.access.maySee(peer) else { return nil }
        return e
    }

    /// Builds every searchable of a config. Errors name the searchable's JSON path.
    public static func build(_ config: DaemonConfig, registry: BackendRegistry) throws -> Catalog {
        Catalog(
            entries: try config.searchables.map {
                try buildEntry($0, config: config, registry: registry, fingerprint: CatalogLoader.fingerprint($0, config: config))
            })
    }

    /// Builds one searchable.
    package static func buildEntry(
        _ s: DaemonConfig.SearchableConfig, config: DaemonConfig, registry: BackendRegistry, fingerprint: String
    ) throws -> Entry {
        guard let factory = registry.factory(for: s.kind) else {
            throw SearchError(
                .invalidField,
                "\(s.path).backend: unknown backend kind '\(s.kind)', expected one of \(registry.kinds.joined(separator: ", "))")
        }
        let base = config
        let context = BackendContext(
            name: s.name, options: s.options, path: s.path, resolvePath: { base.resolve($0) },
            dataDirectory: config.dataDirectory, timeout: .milliseconds(s.timeoutMs ?? config.defaultTimeoutMs))
        return Entry(
            id: SearcherId(index: s.name), searchable: try factory(context), kind: s.kind,
            defaultTimeout: .milliseconds(s.timeoutMs ?? config.defaultTimeoutMs), fingerprint: fingerprint,
            access: s.access, pollInterval: s.pollIntervalMs.map { .milliseconds($0) })
    }
}

extension Catalog {
    /// The error for a request that named an index and was bad otherwise: as for an unknown
    /// index if `peer` may not know of it (a peer learns nothing of an index it may not see,
    /// not even from a validation error), else the request's own error.
    package func refusal(of e: RequestError, peer: PeerIdentity?) -> SearchError {
        guard let index = e.index else { return e.error }
        return entry(index, visibleTo: peer) == nil ? unknownIndex(index, path: "index", peer: peer) : e.error
    }
}
