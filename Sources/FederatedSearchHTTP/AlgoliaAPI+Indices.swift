import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchProtocol
import FederatedSearchServer

/// Making, deleting, copying and moving whole indices, through the daemon's
/// ``IndexAdministration``: `DELETE /1/indexes/{index}`, `POST /1/indexes/{index}/operation`,
/// and the index a write to a missing one creates.
extension AlgoliaAPI {
    /// `DELETE /1/indexes/{index}`: an index made over the API or the socket, with its store.
    /// Deleting an index that does not exist succeeds, as in Algolia.
    func deleteIndex(_ index: String, _ x: Exchange) async -> HTTPResponse {
        guard let administration = x.core.administration else { return .error(Self.noAdministration) }
        switch await administration.deleteIndex(index) {
        case .failure(let e) where e.code != .unknownIndex:
            return .error(e)
        case .success, .failure:
            return .json(200, ["taskID": .number(Double(administeredTasks.give())), "deletedAt": .string(Self.now())])
        }
    }

    /// `POST /1/indexes/{index}/operation` with `{"operation": "copy" | "move", "destination":
    /// name, "scope": [...]}`. The destination (made if missing) becomes the source's settings
    /// and records in one atomic batch; `move` then deletes the source. With `scope` (copy only:
    /// `settings`, `synonyms`, `rules`) only those parts are laid over the destination's.
    func copyOrMove(_ index: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        var r = FieldReader(body, path: "body")
        let operation: String
        let destination: String
        let scope: [String]?
        do {
            operation = try r.requiredString("operation")
            destination = try r.requiredString("destination")
            scope = try r.stringArray("scope")
            try r.rejectUnknownKeys()
        } catch {
            return .error(error)
        }
        guard operation == "copy" || operation == "move" else {
            return .error(SearchError(.invalidField, "body.operation: expected copy or move, got '\(operation)'"))
        }
        guard !destination.isEmpty, destination != index else {
            return .error(SearchError(.invalidField, "body.destination: expected another index than '\(index)'"))
        }
        if let scope, let unknown = scope.first(where: { !["settings", "synonyms", "rules"].contains($0) }) {
            return .error(SearchError(.invalidField, "body.scope: expected settings, synonyms or rules, got '\(unknown)'"))
        }
        let keyed = !config.keys.isEmpty
        for name in [index, destination] where !x.allows(.addObject, index: name, keysConfigured: keyed) {
            return .error(403, "this API key may not addObject on index '\(name)'", code: .forbidden)
        }
        guard let administration = x.core.administration else { return .error(Self.noAdministration) }
        guard let source = x.core.catalog.entry(index) else {
            return .error(x.core.catalog.unknownIndex(index, path: "index", peer: x.peer))
        }
        if operation == "move", source.fingerprint != Catalog.createdFingerprint {
            return .error(SearchError(.indexInConfig, "index: '\(index)' is defined in the config file and cannot be moved; copy it"))
        }
        // The source's settings and records as its writes so far left them.
        let settings: JSONObject
        let documents: [JSONObject]
        switch source.searchable {
        case let durable as DurableIndex:
            guard case .success(let reply) = await indexOperation(index, .getSettings, x), case .object(let s)? = reply["settings"] else {
                return .error(SearchError(.internalError, "index: the settings of '\(index)' could not be read"))
            }
            settings = s
            documents = scope == nil ? durable.snapshot.allDocuments() : []
        case let embedded as EmbeddedIndex:
            settings = embedded.configuredSettings
            documents = scope == nil ? embedded.allDocuments() : []
        default:
            return .error(
                SearchError(.unsupportedOperation, "index: '\(index)' (\(source.kind)) cannot be copied: only embedded indices can"))
        }
        var target = x
        switch await existing(destination, settings: scope == nil ? settings : [:], in: &target, administration) {
        case .failure(let e): return .error(e)
        case .success(let durable):
            let write: IndexWrite
            if let scope {
                var parts = JSONObject()
                for e in settings.entries {
                    let isSynonyms = e.key == "synonyms"
                    if isSynonyms ? scope.contains("synonyms") : scope.contains("settings") { parts[e.key] = e.value }
                }
                write = .settings(parts)
            } else {
                write = .replace(settings: settings, documents: documents)
            }
            let reply = await withCheckedContinuation { done in durable.submit(write) { done.resume(returning: $0) } }
            if case .failure(let e) = reply { return .error(e) }
        }
        if operation == "move", case .failure(let e) = await administration.deleteIndex(index), e.code != .unknownIndex {
            return .error(e)
        }
        return .json(200, ["taskID": .number(Double(administeredTasks.give())), "updatedAt": .string(Self.now())])
    }

    /// The durable index `name`, made with `settings` if it does not exist (`x`'s core then
    /// sees it).
    private func existing(
        _ name: String, settings: JSONObject, in x: inout Exchange, _ administration: any IndexAdministration
    ) async -> Result<DurableIndex, SearchError> {
        if x.core.catalog.entry(name) == nil, let e = await make(name, settings: settings, in: &x, administration) {
            return .failure(e)
        }
        guard let entry = x.core.catalog.entry(name) else {
            return .failure(x.core.catalog.unknownIndex(name, path: "index", peer: x.peer))
        }
        guard let durable = entry.searchable as? DurableIndex else {
            return .failure(SearchError(.notWritable, "index: '\(name)' takes no writes (an embedded index needs a dataDir in the config)"))
        }
        return .success(durable)
    }

    /// Before a write that Algolia answers by creating the index: makes `index` if it does not
    /// exist, the daemon has a `dataDir` and the key may `addObject` on it. Otherwise leaves
    /// `x` as it is (the write then says what is missing).
    func creatingIfMissing(_ index: String, _ x: inout Exchange) async {
        guard x.core.catalog.entry(index) == nil, let administration = x.core.administration,
            x.allows(.addObject, index: index, keysConfigured: !config.keys.isEmpty)
        else { return }
        _ = await make(index, settings: [:], in: &x, administration)
    }

    /// Makes index `name` (one another request made meanwhile will do) and has `x`'s core see
    /// it; the error if it could not be made.
    private func make(
        _ name: String, settings: JSONObject, in x: inout Exchange, _ administration: any IndexAdministration
    ) async -> SearchError? {
        if case .failure(let e) = await administration.createIndex(name, settings: settings), e.code != .indexExists { return e }
        x.core = x.core.with(catalog: x.visible(await administration.currentCatalog(), keysConfigured: !config.keys.isEmpty))
        return nil
    }

    static let noAdministration = SearchError(.unsupportedOperation, "index administration needs the daemon's event loop")
}
