#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchBackends
import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchServer

/// `createIndex` and `deleteIndex` of an index on another backend (a Typesense collection):
/// the searchable's object checked on the loop, then, off it, the backend's storage made
/// unless it exists, and the record written (see ``CreatedSearchables``); `deleteIndex`
/// removes the storage only if `createIndex` made it, then the record.
extension EventLoop {
    func createBackendIndex(_ name: String, on object: JSONObject, in dir: String, for requester: IndexRequester)
        -> IndexAdministrationStart
    {
        let entry: Catalog.Entry
        do {
            guard access("\(dir)/\(name).sqlite", F_OK) != 0, access(CreatedSearchables.path(of: name, in: dir), F_OK) != 0 else {
                throw SearchError(.indexExists, "index: a store or record of an index '\(name)' exists already in dataDir")
            }
            let searchable = try CreatedSearchables.decode(name: name, object)
            entry = try CreatedSearchables.entry(searchable, config: config, registry: loader.registry)
        } catch {
            return .answered(.failure(Self.searchError(error, name)))
        }
        guard let backend = entry.searchable as? any CreatableBackend else {
            return .answered(
                .failure(
                    SearchError(
                        .invalidField, "searchable.backend: a \(entry.kind) index cannot be made by createIndex")))
        }
        indexNamesInTransition.insert(name)
        let inbox: Inbox = self.inbox
        Task.detached {
            let result = await EventLoop.make(entry, backend, object, in: dir)
            inbox.post(.indexCreated(requester, name: name, result))
        }
        return .started
    }

    /// Makes the storage, then the record; on failure, leaves nothing behind that no index
    /// stands for.
    private static func make(
        _ entry: Catalog.Entry, _ backend: any CreatableBackend, _ object: JSONObject, in dir: String
    ) async -> Result<Catalog.Entry, SearchError> {
        let name = entry.id.index
        var made = false
        do {
            made = try await backend.createStorage()
            try CreatedSearchables.write(.init(name: name, searchable: object, madeStorage: made), in: dir)
            return .success(entry)
        } catch {
            if made { try? await backend.removeStorage() }
            return .failure(searchError(error, name))
        }
    }

    func deleteBackendIndex(_ entry: Catalog.Entry, for requester: IndexRequester) -> IndexAdministrationStart {
        let name = entry.id.index
        guard let dir = config.dataDirectory, let record = CreatedSearchables.record(name, in: dir) else {
            return .answered(.failure(SearchError(.internalError, "index: the record of '\(name)' is missing from dataDir")))
        }
        indexNamesInTransition.insert(name)
        let inbox: Inbox = self.inbox
        let backend = entry.searchable as? any CreatableBackend
        // A collection another index still searches stays, whoever made it.
        let shared =
            backend.map { b in
                catalog.entries.contains {
                    $0.id.index != name && ($0.searchable as? any CreatableBackend)?.storageIdentity == b.storageIdentity
                }
            } ?? false
        if shared { Log.info("deleteIndex \(name): keeping its storage, which another index uses") }
        let removing = shared ? CreatedSearchables.Record(name: record.name, searchable: record.searchable, madeStorage: false) : record
        Task.detached {
            let result = await EventLoop.remove(removing, backend, in: dir)
            inbox.post(.indexDeleted(requester, name: name, result))
        }
        return .started
    }

    /// Removes the storage if `createIndex` made it, then the record.
    private static func remove(
        _ record: CreatedSearchables.Record, _ backend: (any CreatableBackend)?, in dir: String
    ) async -> Result<Void, SearchError> {
        do {
            if record.madeStorage { try await backend?.removeStorage() }
            CreatedSearchables.remove(record.name, in: dir)
            return .success(())
        } catch {
            return .failure(searchError(error, record.name))
        }
    }

    /// A failure as the answer's error: a backend's own error as it is, anything else internal.
    private static func searchError(_ error: any Error, _ name: String) -> SearchError {
        error as? SearchError ?? SearchError(.internalError, "\(name): \(error)")
    }
}
