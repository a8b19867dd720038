#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import FederatedSearchEngine

/// Reads the config file and builds the catalog: at start, and again on every reload.
public struct CatalogLoader: Sendable {
    /// The config file.
    public let configPath: String
    public let registry: BackendRegistry

    /// A loaded config, its catalog, and what a reload changed.
    public struct Loaded: Sendable {
        public let config: DaemonConfig
        public let catalog: Catalog
        /// Indices built anew (new, or changed config or data files).
        public let rebuilt: [String]
        /// Indices carried over from the previous catalog unchanged.
        public let kept: [String]
        /// Indices of the previous catalog that are gone (closed once their last query ends).
        public let removed: [String]
        /// Durable indices kept with new settings: applied once the reload is accepted.
        package let reconfigured: [Reconfiguration]
    }

    /// A durable index and the settings a reload gives it.
    package struct Reconfiguration: Sendable {
        package let index: DurableIndex
        package let settings: JSONObject
    }

    /// False for `--check-config`: durable indices are built in memory from their data
    /// files, so a check never creates or opens a store in `dataDir`.
    public let opensStores: Bool

    public init(configPath: String, registry: BackendRegistry, opensStores: Bool = true) {
        self.configPath = configPath
        self.registry = registry
        self.opensStores = opensStores
    }

    /// Parses and validates the config, then builds every searchable, reusing the previous
    /// catalog's entries whose config and data files have not changed.
    /// `beforeBuilding` sees the parsed config before any index is built (the daemon refuses
    /// there to start on a socket another daemon serves, rather than after loading every index).
    /// The config's settings of durable indices' writers and merges, which every index reads.
    private static func applyWriteSettings(_ config: DaemonConfig) {
        DurableIndex.settleAfterMs.store(config.settleAfterMs, ordering: .relaxed)
        DurableIndex.segmentFileMinDocuments.store(config.segmentFileMinDocuments, ordering: .relaxed)
        DurableIndex.maxSegmentDocuments.store(config.maxSegmentDocuments, ordering: .relaxed)
    }

    public func load(
        reusing previous: Catalog? = nil, progress: (String) -> Void = { _ in },
        beforeBuilding: (DaemonConfig) throws -> Void = { _ in }
    ) throws -> Loaded {
        let bytes = try FileReader.read(configPath, field: "--config")
        let folder = configPath.contains("/") ? String(configPath[..<configPath.lastIndex(of: "/")!]) : "."
        var config = try DaemonConfig.parse(bytes, baseDirectory: folder)
        try beforeBuilding(config)
        if !opensStores { config.dataDirectory = nil }
        // At the first load, before the stores open (each saves its segments once opened); a
        // reload sets them once it has loaded whole, below.
        if opensStores && previous == nil { Self.applyWriteSettings(config) }
        var entries: [Catalog.Entry] = []
        var rebuilt: [String] = []
        var kept: [String] = []
        var reconfigured: [Reconfiguration] = []
        for s in config.searchables {
            if previous?.entry(s.name)?.fingerprint == Catalog.createdFingerprint {
                throw SearchError(
                    .invalidField, "\(s.path): '\(s.name)' is an index made by createIndex; delete it (deleteIndex) or choose another name")
            }
            let fingerprint = Self.fingerprint(s, config: config)
            if let old = previous?.entry(s.name), old.fingerprint == fingerprint {
                // Same index; the access policy may still have changed.
                entries.append(
                    Catalog.Entry(
                        id: old.id, searchable: old.searchable, kind: old.kind, defaultTimeout: old.defaultTimeout,
                        fingerprint: old.fingerprint, access: s.access, pollInterval: s.pollIntervalMs.map { .milliseconds($0) }))
                kept.append(s.name)
                continue
            }
            if let old = previous?.entry(s.name), let durable = old.searchable as? DurableIndex, s.kind == "embedded",
                let dir = config.dataDirectory, durable.path == "\(dir)/\(s.name).sqlite"
            {
                // The same store: never open it twice (writes would land in the copy that is
                // going away). The index takes the new settings in turn with its writes; its
                // data files were imported once and are not read again.
                var settings = s.options
                settings["data"] = nil
                try durable.checkReconfiguration(settings, path: s.path)
                reconfigured.append(Reconfiguration(index: durable, settings: settings))
                entries.append(
                    Catalog.Entry(
                        id: old.id, searchable: durable, kind: old.kind,
                        defaultTimeout: .milliseconds(s.timeoutMs ?? config.defaultTimeoutMs),
                        fingerprint: fingerprint, access: s.access, pollInterval: s.pollIntervalMs.map { .milliseconds($0) }))
                rebuilt.append(s.name)
                continue
            }
            progress("loading \(s.name)")
            entries.append(try Catalog.buildEntry(s, config: config, registry: registry, fingerprint: fingerprint))
            rebuilt.append(s.name)
        }
        let names = Set(config.searchables.map(\.name))
        if previous == nil, let dir = config.dataDirectory {
            // Indices made over the socket; a reload keeps the loop's own (see finishReload).
            for (name, index) in DurableIndex.openCreated(in: dir, except: names) {
                progress("loading \(name)")
                entries.append(
                    Catalog.Entry(
                        id: SearcherId(index: name), searchable: index, kind: "embedded",
                        defaultTimeout: .milliseconds(config.defaultTimeoutMs), fingerprint: Catalog.createdFingerprint,
                        access: AccessPolicy()))
            }
            for entry in CreatedSearchables.openAll(in: dir, except: names, config: config, registry: registry) {
                progress("loading \(entry.id.index)")
                entries.append(entry)
            }
        }
        let removed =
            previous?.entries.filter { $0.fingerprint != Catalog.createdFingerprint }.map(\.id.index)
            .filter { !names.contains($0) } ?? []
        // Only a config that loads whole takes effect (a refused reload keeps the old value).
        if opensStores { Self.applyWriteSettings(config) }
        return Loaded(
            config: config, catalog: Catalog(entries: entries), rebuilt: rebuilt, kept: kept, removed: removed, reconfigured: reconfigured)
    }

    /// What decides whether a searchable must be rebuilt: its whole config object, the daemon
    /// default timeout it inherits, and the size and modification time of its data files.
    package static func fingerprint(_ s: DaemonConfig.SearchableConfig, config: DaemonConfig) -> String {
        var text = "\(s.kind)|\(s.timeoutMs ?? config.defaultTimeoutMs)|" + JSONWriter.string(.object(s.options))
        let files: [String]
        switch s.options["data"] {
        case .string(let f)?: files = [f]
        case .array(let a)?: files = a.compactMap(\.stringValue)
        default: files = []
        }
        for f in files {
            var st = stat()
            if stat(config.resolve(f), &st) == 0 {
                text += "|\(f):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
            } else {
                text += "|\(f):missing"
            }
        }
        return text
    }
}
