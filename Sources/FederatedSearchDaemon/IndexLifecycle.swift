#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol
import FederatedSearchStorage

/// Who asked for an index to be made or removed: a socket connection (answered with a frame
/// through it) or a task (an HTTP exchange's, resumed with the outcome).
enum IndexRequester: Sendable {
    case connection(UInt64, id: String?)
    case task(@Sendable (Result<Void, SearchError>) -> Void)
}

/// How a request to make or remove an index went at once: started (its outcome goes to the
/// requester later), or answered already.
enum IndexAdministrationStart {
    case started
    case answered(Result<Void, SearchError>)
}

/// `createIndex` and `deleteIndex` on the loop, whoever asks (a connection, after its peer's
/// rights are checked; the HTTP API, after its key's): durable embedded indices kept in
/// `<dataDir>/<name>.sqlite` with the origin "createIndex" (so the daemon reopens them at
/// start), deleted with their store; indices on other backends likewise, through
/// ``CreatedSearchables`` (see IndexLifecycle+Backend.swift).
extension EventLoop {
    func createIndex(_ name: String, settings: JSONObject, searchable: JSONObject?, for requester: IndexRequester)
        -> IndexAdministrationStart
    {
        guard let dir = config.dataDirectory else {
            return .answered(.failure(SearchError(.notWritable, "op: createIndex needs a dataDir in the daemon's config")))
        }
        guard reload == nil else {
            return .answered(.failure(SearchError(.tooManyRequests, "op: a reload is in progress; retry createIndex when it is done")))
        }
        guard catalog.entry(name) == nil, !indexNamesInTransition.contains(name) else {
            return .answered(.failure(SearchError(.indexExists, "index: an index named '\(name)' exists already")))
        }
        if let searchable { return createBackendIndex(name, on: searchable, in: dir, for: requester) }
        guard access(CreatedSearchables.path(of: name, in: dir), F_OK) != 0 else {
            return .answered(.failure(SearchError(.indexExists, "index: a record of an index '\(name)' exists already in dataDir")))
        }
        do {
            _ = try IndexSettings.decode(settings, path: "settings")
        } catch {
            return .answered(.failure(error))
        }
        indexNamesInTransition.insert(name)
        let inbox: Inbox = self.inbox
        let timeout = Duration.milliseconds(config.defaultTimeoutMs)
        // Creating the file syncs to disk: off the loop.
        DispatchQueue.global().async {
            let result: Result<Catalog.Entry, SearchError>
            do {
                let index = try DurableIndex.create(name: name, path: "\(dir)/\(name).sqlite", settings: settings)
                result = .success(
                    Catalog.Entry(
                        id: SearcherId(index: name), searchable: index, kind: "embedded", defaultTimeout: timeout,
                        fingerprint: Catalog.createdFingerprint, access: AccessPolicy()))
            } catch let e as SearchError {
                result = .failure(e)
            } catch {
                result = .failure(SearchError(.internalError, "\(name): the index was not created: \(error)"))
            }
            inbox.post(.indexCreated(requester, name: name, result))
        }
        return .started
    }

    /// `administrator`: whether the requester may also remove the record of an index that
    /// could not be opened at start (which no catalog entry stands for).
    func deleteIndex(_ name: String, administrator: Bool, for requester: IndexRequester) -> IndexAdministrationStart {
        guard !indexNamesInTransition.contains(name) else {
            return .answered(
                .failure(
                    SearchError(
                        .tooManyRequests, "index: '\(name)' is being created or deleted; retry when that is done")))
        }
        guard let entry = catalog.entry(name) else {
            if let dir = config.dataDirectory, administrator, CreatedSearchables.hasRecord(name, in: dir) {
                // A record that could not be built at start (a bad file, a secret missing):
                // deleting it frees the name; its storage, if createIndex made any, stays.
                CreatedSearchables.remove(name, in: dir)
                Log.info("deleted the record of index \(name), which could not be opened")
                return .answered(.success(()))
            }
            return .answered(.failure(SearchError(.unknownIndex, "index: no index named '\(name)'")))
        }
        guard entry.fingerprint == Catalog.createdFingerprint else {
            return .answered(
                .failure(
                    SearchError(
                        .indexInConfig, "index: '\(name)' is defined in the config file; remove it there and reload")))
        }
        guard let durable = entry.searchable as? DurableIndex else { return deleteBackendIndex(entry, for: requester) }
        // New requests no longer find it; searches already running keep their snapshot. The
        // store goes in turn with the writes queued before (they are applied and answered);
        // later ones are refused.
        catalog = Catalog(entries: catalog.entries.filter { $0.id.index != name })
        indexNamesInTransition.insert(name)
        let inbox: Inbox = self.inbox
        durable.submit(.remove) { _ in inbox.post(.indexDeleted(requester, name: name, .success(()))) }
        return .started
    }

    func finishDeletingIndex(_ name: String, _ result: Result<Void, SearchError>, for requester: IndexRequester) {
        indexNamesInTransition.remove(name)
        if case .success = result {
            // An index on another backend leaves the catalog only now (an embedded one left it
            // when the request came).
            catalog = Catalog(entries: catalog.entries.filter { $0.id.index != name })
            Log.info("deleted index \(name)")
        }
        answer(requester, result, done: "indexDeleted", name: name)
    }

    func finishCreatingIndex(_ name: String, _ result: Result<Catalog.Entry, SearchError>, for requester: IndexRequester) {
        indexNamesInTransition.remove(name)
        let outcome: Result<Void, SearchError>
        switch result {
        case .success where catalog.entry(name) != nil:
            // Only an index on another backend can get here (a reload cannot add this name
            // while it is in transition): its record goes, and the storage it made stays
            // for the index that now has the name to decide about.
            if let dir = config.dataDirectory { CreatedSearchables.remove(name, in: dir) }
            outcome = .failure(SearchError(.indexExists, "index: an index named '\(name)' exists already"))
        case .success(let entry):
            catalog = Catalog(entries: catalog.entries + [entry])
            Log.info("created index \(name)")
            outcome = .success(())
        case .failure(let error):
            outcome = .failure(error)
        }
        answer(requester, outcome, done: "indexCreated", name: name)
    }

    /// Gives the outcome to whoever asked: a connection gets the `done` frame (or the error).
    private func answer(_ requester: IndexRequester, _ outcome: Result<Void, SearchError>, done: String, name: String) {
        switch requester {
        case .connection(let connection, let id):
            let frame: Frame =
                switch outcome {
                case .success: .info(id: id, type: done, payload: ["index": .string(name)])
                case .failure(let error): .error(id: id, index: nil, error: error)
                }
            connections[connection]?.replied(frame.line())
        case .task(let resume):
            resume(outcome)
        }
        if draining { finishDrainIfIdle() }
    }
}

/// The socket's `createIndex` and `deleteIndex`: only root and the daemon's own user may do
/// either.
extension Connection {
    func createIndex(_ name: String, settings: JSONObject, searchable: JSONObject?, id requestID: String?) {
        if let error = checkIndexAdministration("createIndex") {
            return write(Frame.error(id: requestID, index: nil, error: error).line())
        }
        started(
            loop.createIndex(name, settings: settings, searchable: searchable, for: .connection(id, id: requestID)),
            done: "indexCreated", name: name, id: requestID)
    }

    func deleteIndex(_ name: String, id requestID: String?) {
        if let error = checkIndexAdministration("deleteIndex") {
            return write(Frame.error(id: requestID, index: nil, error: error).line())
        }
        var start = loop.deleteIndex(name, administrator: peer?.isAdministrator == true, for: .connection(id, id: requestID))
        if case .answered(.failure(let e)) = start, e.code == .unknownIndex {
            start = .answered(.failure(loop.catalog.unknownIndex(name, path: "index", peer: peerIdentity)))
        }
        started(start, done: "indexDeleted", name: name, id: requestID)
    }

    private func started(_ start: IndexAdministrationStart, done: String, name: String, id requestID: String?) {
        switch start {
        case .started: awaitedReplies += 1
        case .answered(.success): write(Frame.info(id: requestID, type: done, payload: ["index": .string(name)]).line())
        case .answered(.failure(let error)): write(Frame.error(id: requestID, index: nil, error: error).line())
        }
    }

    func checkIndexAdministration(_ op: String) -> SearchError? {
        peer?.isAdministrator == true
            ? nil : SearchError(.forbidden, "op: \(op) is allowed to root and the daemon's own user only")
    }
}
