#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchBackends
import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchHTTP
import FederatedSearchCore
import FederatedSearchProtocol

/// The daemon's entry point: parses the command line, loads the config, builds every
/// searchable, then serves the socket on a dedicated loop thread until SIGINT or SIGTERM.
public enum DaemonMain {
    static let usage = """
        usage: fedsearchd [--config FILE] [--socket PATH] [--log-level LEVEL]
               fedsearchd --check-config FILE
               fedsearchd --help | --version

          --config FILE        config file (default /etc/fedsearchd/fedsearchd.json)
          --socket PATH        listen on PATH instead of the config's "socket"
          --log-level LEVEL    debug, info, warning or error (overrides the config)
          --check-config FILE  validate FILE, build every searchable (in memory: no store in
                               dataDir is created or opened), report and exit
        """

    /// Runs the daemon and returns its exit code.
    public static func run(arguments: [String], registry: BackendRegistry = .standard) -> Int32 {
        // Before any thread can: the backends' HTTP client makes its loop on whichever thread
        // first needs it (a Typesense index asks for its document count while the catalog loads).
        EventBase.prepareThreads()
        // The loop's base, made now so that the backends' outgoing HTTP runs on the loop
        // thread from the first request (a Typesense index asks for its document count while
        // the catalog loads; the answer waits until the loop runs): a search waiting on a
        // backend is resumed where it started, with no hand-off between threads.
        let base: EventBase
        do { base = try EventBase() } catch {
            writeToStandardError("fedsearchd: \(error)\n")
            return 1
        }
        EventHTTPLoop.install(on: base)
        // A Typesense node's change of health, for searches or for writes, is worth a line.
        TypesenseNodes.healthChanges.withLock { $0 = { Log.info($0) } }
        JournalLog.installIfJournal()
        var configPath = "/etc/fedsearchd/fedsearchd.json"
        var socketOverride: String?
        var levelOverride: Log.Level?
        var checkOnly = false
        var i = 1
        func value(_ flag: String) -> String? {
            i += 1
            guard i < arguments.count else {
                writeToStandardError("fedsearchd: \(flag) needs a value\n\(usage)\n")
                return nil
            }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--help", "-h":
                print(usage)
                return 0
            case "--version":
                print("fedsearchd \(FederatedSearchVersion.string)")
                return 0
            case "--config":
                guard let v = value("--config") else { return 2 }
                configPath = v
            case "--check-config":
                guard let v = value("--check-config") else { return 2 }
                configPath = v
                checkOnly = true
            case "--socket":
                guard let v = value("--socket") else { return 2 }
                socketOverride = v
            case "--log-level":
                guard let v = value("--log-level") else { return 2 }
                guard let l = Log.Level(name: v) else {
                    writeToStandardError("fedsearchd: --log-level: expected debug, info, warning or error, got '\(v)'\n")
                    return 2
                }
                levelOverride = l
            default:
                writeToStandardError("fedsearchd: unknown argument '\(arguments[i])'\n\(usage)\n")
                return 2
            }
            i += 1
        }

        let loader = CatalogLoader(configPath: configPath, registry: registry, opensStores: !checkOnly)
        let loaded: CatalogLoader.Loaded
        do {
            let clock = ContinuousClock()
            let start = clock.now
            if let levelOverride { Log.setLevel(levelOverride) }
            let serving = !checkOnly && !Systemd.passesSockets
            loaded = try loader.load(
                progress: { step in
                    if !checkOnly { Systemd.notify("STATUS=\(step)") }
                },
                beforeBuilding: { config in
                    if serving { try UnixSocket.refuseIfServed(socketOverride ?? config.socketPath) }
                    // Before any store opens: one daemon per data folder (under systemd too).
                    if !checkOnly, let dir = config.dataDirectory { try DataFolderLock.acquire(dir) }
                })
            if levelOverride == nil { Log.setLevel(loaded.config.logLevel) }
            let ms = (clock.now - start).components
            Log.info(
                "loaded \(loaded.catalog.entries.count) searchables in \(ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000) ms")
        } catch let error as SearchError {
            writeToStandardError("fedsearchd: \(configPath): \(error.message) [\(error.code.rawValue)]\n")
            return 1
        } catch {
            writeToStandardError("fedsearchd: \(configPath): \(error)\n")
            return 1
        }
        if checkOnly {
            for e in loaded.catalog.entries {
                let n = e.searchable.description.documentCount.map(String.init) ?? "?"
                print("\(e.id.index): \(e.kind), \(n) documents")
            }
            print("\(configPath): OK")
            return 0
        }
        var config = loaded.config
        if let socketOverride { config.socketPath = socketOverride }
        return serve(config: config, catalog: loaded.catalog, loader: loader, base: base)
    }

    /// The config's limits, lowered (with a warning) to fit under the descriptor limit.
    static func fittedLimits(_ config: DaemonConfig, descriptorLimit: UInt, indices: Int) -> DaemonConfig.Limits {
        let (limits, warning) = DescriptorBudget.fit(
            config.limits, descriptorLimit: Int(clamping: descriptorLimit), transports: config.http == nil ? 1 : 2, indices: indices)
        if let warning { Log.warning(warning) }
        return limits
    }

    static func serve(config: DaemonConfig, catalog: Catalog, loader: CatalogLoader, base: EventBase) -> Int32 {
        // A parent may have started us with signals blocked (the mask is inherited across
        // exec): unblock them all before any thread starts, or SIGTERM would never arrive.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        // A client that goes away mid-write must not kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        // As many descriptors as the system allows us, one kept in reserve for refusing a
        // connection when they run out (see AcceptBackoff).
        let descriptorLimit = AcceptBackoff.raiseDescriptorLimit()
        Log.info("descriptor limit: \(descriptorLimit)")
        AcceptBackoff.prepare { Log.warning($0) }
        var config = config
        config.limits = fittedLimits(config, descriptorLimit: descriptorLimit, indices: catalog.entries.count)
        let loop: EventLoop
        let activated = Systemd.activatedSockets()
        do {
            loop = try EventLoop(config: config, catalog: catalog, loader: loader, stats: DaemonStats(), base: base)
            // Each write group a durable index publishes wakes the live subscriptions on it.
            let inbox: Inbox = loop.inbox
            DurableIndex.published.withLock {
                $0 = { index, changes in inbox.post(.onLoop { $0.live.indexChanged(index, changes: changes) }) }
            }
            if activated.main.isEmpty {
                try loop.serve(listeningSocket: try UnixSocket.listen(path: config.socketPath, mode: config.socketMode))
            } else {
                for fd in activated.main { try loop.serve(listeningSocket: fd) }
                loop.servesSystemdSockets = true
            }
            if config.http == nil, !activated.http.isEmpty {
                Log.warning("systemd passed \(activated.http.count) HTTP socket(s) but the config has no \"http\" object: not served")
            }
            if let http = config.http {
                let listener = try HTTPListener(loop: loop, config: http, startedAt: AlgoliaAPI.now())
                if activated.http.isEmpty { try listener.listen() } else { for fd in activated.http { try listener.accept(socket: fd) } }
                loop.httpListener = listener
                let at = activated.http.isEmpty ? http.listen.description : "\(activated.http.count) socket(s) passed by systemd"
                Log.info(
                    "HTTP API on \(at)\(http.keys.isEmpty ? " (no API keys: open to whoever reaches it)" : ", \(http.keys.count) API keys")"
                )
                if http.keys.isEmpty, !http.listen.isLocalOnly || !activated.http.isEmpty {
                    Log.warning(
                        "the HTTP listener takes requests from beyond this machine and no API key is configured: anyone who reaches \(at) may search and write; add http.keys"
                    )
                }
            }
        } catch {
            writeToStandardError("fedsearchd: \(error)\n")
            return 1
        }
        if let interval = Systemd.watchdogInterval() { loop.startWatchdog(every: interval) }
        loop.startRequestDeadlines()
        let listening = activated.main.isEmpty ? config.socketPath : "\(activated.main.count) socket(s) passed by systemd"
        Log.info("serving \(catalog.entries.map(\.id.index).joined(separator: ", ")) on \(listening)")
        Systemd.notify("READY=1\nSTATUS=serving \(catalog.entries.count) indices")
        // The loop gets its own thread; the main thread only waits. Nothing here is main-actor
        // isolated, so query tasks run on the global executor while the loop runs.
        ThreadHandoff.run(loop, onThreadNamed: "fedsearchd-loop", stackSize: 8 << 20) { $0.run() }
        // Only a socket we created is ours to remove.
        if activated.main.isEmpty { unlink(config.socketPath) }
        if activated.http.isEmpty, case .unix(let path)? = config.http?.listen { unlink(path) }
        Log.info("stopped")
        return 0
    }
}
