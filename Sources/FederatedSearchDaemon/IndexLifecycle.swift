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

/// `createIndex` and `deleteIndex`: durable embedded indices made over the socket, kept in
/// `<dataDir>/<name>.sqlite` with the origin "createIndex" (so the daemon reopens them at
/// start), and deleted with their store; indices on other backends likewise, through
/// ``CreatedSearchables`` (see IndexLifecycle+Backend.swift). Only root and the daemon's own
/// user may do either.
extension Connection {
    func createIndex(_ name: String, settings: JSONObject, searchable: JSONObject?, id requestID: String?) {
        if let error = checkIndexAdministration("createIndex") {
            return write(Frame.error(id: requestID, index: nil, error: error).line())
        }
        guard let dir = loop.config.dataDirectory else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .notWritable, "op: createIndex needs a dataDir in the daemon's config")).line())
        }
        guard loop.reload == nil else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .tooManyRequests, "op: a reload is in progress; retry createIndex when it is done")).line())
        }
        guard loop.catalog.entry(name) == nil, !loop.indexNamesInTransition.contains(name) else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .indexExists, "index: an index named '\(name)' exists already")).line())
        }
        if let searchable { return createIndex(name, on: searchable, in: dir, id: requestID) }
        guard access(CreatedSearchables.path(of: name, in: dir), F_OK) != 0 else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .indexExists, "index: a record of an index '\(name)' exists already in dataDir")).line())
        }
        do {
            _ = try IndexSettings.decode(settings, path: "settings")
        } catch {
            return write(Frame.error(id: requestID, index: nil, error: error).line())
        }
        loop.indexNamesInTransition.insert(name)
        awaitedReplies += 1
        let inbox: Inbox = loop.inbox
        let connection = self.id
        let timeout = Duration.milliseconds(loop.config.defaultTimeoutMs)
        // Creating the file syncs to disk: off the loop.
        DispatchQueue.global().async {
            let result: Result<Catalog.Entry, SearchError>
            do {
                let index = try DurableIndex.create(name: name, path: "\(dir)/\(name).sqlite", settings: settings)
                result = .success(Catalog.Entry(
                    id: SearcherId(index: name), searchable: index, kind: "embedded", defaultTimeout: timeout,
                    fingerprint: Catalog.createdFingerprint, access: AccessPolicy()))
            } catch let e as SearchError {
                result = .failure(e)
            } catch {
                result = .failure(SearchError(.internalError, "\(name): the index was not created: \(error)"))
            }
            inbox.post(.indexCreated(connection: connection, id: requestID, name: name, result))
        }
    }

    func deleteIndex(_ name: String, id requestID: String?) {
        if let error = checkIndexAdministration("deleteIndex") {
            return write(Frame.error(id: requestID, index: nil, error: error).line())
        }
        guard !loop.indexNamesInTransition.contains(name) else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .tooManyRequests, "index: '\(name)' is being created or deleted; retry when that is done")).line())
        }
        guard let entry = loop.catalog.entry(name) else {
            if let dir = loop.config.dataDirectory, peer?.isAdministrator == true, CreatedSearchables.hasRecord(name, in: dir) {
                // A record that could not be built at start (a bad file, a secret missing):
                // deleting it frees the name; its storage, if createIndex made any, stays.
                CreatedSearchables.remove(name, in: dir)
                Log.info("deleted the record of index \(name), which could not be opened")
                return write(Frame.info(id: requestID, type: "indexDeleted", payload: ["index": .string(name)]).line())
            }
            return write(Frame.error(
                id: requestID, index: nil, error: loop.catalog.unknownIndex(name, path: "index", peer: peerIdentity)).line())
        }
        guard entry.fingerprint == Catalog.createdFingerprint else {
            return write(Frame.error(id: requestID, index: nil, error: SearchError(
                .indexInConfig, "index: '\(name)' is defined in the config file; remove it there and reload")).line())
        }
        guard let durable = entry.searchable as? DurableIndex else { return deleteBackendIndex(entry, id: requestID) }
        // New requests no longer find it; searches already running keep their snapshot. The
        // store goes in turn with the writes queued before (they are applied and answered);
        // later ones are refused.
        loop.catalog = Catalog(entries: loop.catalog.entries.filter { $0.id.index != name })
        loop.indexNamesInTransition.insert(name)
        awaitedReplies += 1
        let inbox: Inbox = loop.inbox
        let connection = id
        durable.submit(.remove) { _ in inbox.post(.indexDeleted(connection: connection, id: requestID, name: name, .success(()))) }
    }

    func checkIndexAdministration(_ op: String) -> SearchError? {
        peer?.isAdministrator == true
            ? nil : SearchError(.forbidden, "op: \(op) is allowed to root and the daemon's own user only")
    }
}

extension EventLoop {
    func finishDeletingIndex(_ name: String, _ result: Result<Void, SearchError>, connection: UInt64, id: String?) {
        indexNamesInTransition.remove(name)
        let frame: Frame
        switch result {
        case .success:
            // An index on another backend leaves the catalog only now (an embedded one left it
            // when the request came).
            catalog = Catalog(entries: catalog.entries.filter { $0.id.index != name })
            Log.info("deleted index \(name)")
            frame = .info(id: id, type: "indexDeleted", payload: ["index": .string(name)])
        case .failure(let error):
            frame = .error(id: id, index: nil, error: error)
        }
        connections[connection]?.replied(frame.line())
        if draining { finishDrainIfIdle() }
    }

    func finishCreatingIndex(_ name: String, _ result: Result<Catalog.Entry, SearchError>, connection: UInt64, id: String?) {
        indexNamesInTransition.remove(name)
        let frame: Frame
        switch result {
        case .success where catalog.entry(name) != nil:
            // Only an index on another backend can get here (a reload cannot add this name
            // while it is in transition): its record goes, and the storage it made stays
            // for the index that now has the name to decide about.
            if let dir = config.dataDirectory { CreatedSearchables.remove(name, in: dir) }
            frame = .error(id: id, index: nil, error: SearchError(.indexExists, "index: an index named '\(name)' exists already"))
        case .success(let entry):
            catalog = Catalog(entries: catalog.entries + [entry])
            Log.info("created index \(name)")
            frame = .info(id: id, type: "indexCreated", payload: ["index": .string(name)])
        case .failure(let error):
            frame = .error(id: id, index: nil, error: error)
        }
        connections[connection]?.replied(frame.line())
        if draining { finishDrainIfIdle() }
    }
}
