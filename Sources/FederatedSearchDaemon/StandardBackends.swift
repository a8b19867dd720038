import FederatedSearchBackends
import FederatedSearchPostgres
import FederatedSearchServer

extension BackendRegistry {
    /// The kinds shipped with fedsearchd: the embedded index, and the network kinds of the
    /// backends modules (`http`, `fedsearchd`, `postgres`, `typesense`), which only the daemon,
    /// assembling everything, imports.
    public static var standard: BackendRegistry {
        var r = BackendRegistry.embedded
        r.register("http") { context in try HTTPBackend(context.backendConfig) }
        r.register("fedsearchd") { context in try RemoteDaemonBackend(context.backendConfig) }
        r.register("postgres") { context in try PostgresBackend(context.backendConfig) }
        r.register(Typesense.kind) { context in
            let searchable = try Typesense.make(context.backendConfig)
            if let warning = Typesense.failoverWarning(searchable, timeout: context.timeout, path: context.path) { Log.warning(warning) }
            return searchable
        }
        return r
    }
}

extension BackendContext {
    /// The same fields as the backends module's ``BackendConfig``, for its factories.
    public var backendConfig: BackendConfig {
        BackendConfig(name: name, options: options, path: path, resolvePath: resolvePath)
    }
}
