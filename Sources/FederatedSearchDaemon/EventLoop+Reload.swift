import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchProtocol

/// Who asked for a reload, so the answer reaches them.
struct ReloadRequester {
    let connection: UInt64
    let id: String?
}

/// A reload in progress.
struct ReloadState {
    var requesters: [ReloadRequester]
}

/// The result of loading the config again, off the loop.
enum ReloadOutcome: Sendable {
    case loaded(CatalogLoader.Loaded)
    case failed(String)
}

/// SIGHUP and the `reload` op: re-read and fully validate the config off the loop thread,
/// then switch the catalog atomically on it. On any error the old config keeps serving.
extension EventLoop {
    func startReload(requester: ReloadRequester?) {
        if reload != nil {
            if let requester { reload?.requesters.append(requester) }
            return
        }
        reload = ReloadState(requesters: requester.map { [$0] } ?? [])
        Systemd.notify("RELOADING=1\nSTATUS=reloading the configuration")
        Log.info("reloading \(loader.configPath)")
        let loader = self.loader
        let previous = catalog
        let inbox: Inbox = self.inbox
        // Building indices takes time: do it on the global executor, never on the loop.
        Task.detached {
            let outcome: ReloadOutcome
            do { outcome = .loaded(try loader.load(reusing: previous)) } catch let e as SearchError {
                outcome = .failed(e.message)
            } catch {
                outcome = .failed(String(describing: error))
            }
            inbox.post(.reloaded(outcome))
        }
    }

    func finishReload(_ outcome: ReloadOutcome) {
        let requesters = reload?.requesters ?? []
        reload = nil
        var outcome = outcome
        if case .loaded(let loaded) = outcome {
            // An index made by createIndex while the reload ran may have a name the new
            // config defines: refuse the config rather than serve two indices on one store.
            let configured = Set(loaded.config.searchables.map(\.name))
            let clashing =
                catalog.entries.filter { $0.fingerprint == Catalog.createdFingerprint && configured.contains($0.id.index) }
                .map(\.id.index) + indexNamesInTransition.filter(configured.contains).sorted()
            if !clashing.isEmpty {
                outcome = .failed(
                    "'\(clashing.joined(separator: "', '"))' was made by createIndex (or is being made or deleted); delete it (deleteIndex) or choose another name in the config"
                )
            }
        }
        let frame: Frame
        switch outcome {
        case .loaded(let loaded):
            if loaded.config.socketPath != config.socketPath || loaded.config.socketMode != config.socketMode {
                Log.warning("reload: socket and socketMode changes take effect at the next start")
            }
            Log.setLevel(loaded.config.logLevel)
            // Indices made by createIndex are the loop's own: keep the ones it has now.
            let created = catalog.entries.filter { $0.fingerprint == Catalog.createdFingerprint }
            catalog = Catalog(entries: loaded.catalog.entries.filter { $0.fingerprint != Catalog.createdFingerprint } + created)
            for r in loaded.reconfigured { r.index.reconfigure(configSettings: r.settings) }
            health.update(loaded.config.circuitBreaker)
            config = loaded.config
            config.limits = DaemonMain.fittedLimits(
                loaded.config, descriptorLimit: AcceptBackoff.raiseDescriptorLimit(), indices: catalog.entries.count)
            let summary =
                "rebuilt [\(loaded.rebuilt.joined(separator: ", "))], kept [\(loaded.kept.joined(separator: ", "))], removed [\(loaded.removed.joined(separator: ", "))]"
            Log.info("reloaded: \(summary)")
            Systemd.notify("READY=1\nSTATUS=serving \(catalog.entries.count) indices")
            frame = Frame.info(
                id: nil, type: "reload",
                payload: JSONObject([
                    ("status", "ok"),
                    ("rebuilt", .array(loaded.rebuilt.map { .string($0) })),
                    ("kept", .array(loaded.kept.map { .string($0) })),
                    ("removed", .array(loaded.removed.map { .string($0) })),
                ]))
        case .failed(let message):
            Log.error("reload failed, still serving the previous configuration: \(message)")
            Systemd.notify("READY=1\nSTATUS=reload failed: \(message)")
            frame = .error(id: nil, index: nil, error: SearchError(.reloadFailed, message))
        }
        for r in requesters {
            connections[r.connection]?.write(frame.withID(r.id).line())
        }
    }
}
