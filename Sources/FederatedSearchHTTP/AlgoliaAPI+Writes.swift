#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchServer

/// Algolia's write endpoints, on durable indices: each answers once its batch is committed
/// and searchable, with the batch's sequence number as Algolia's `taskID`.
extension AlgoliaAPI {
    /// Algolia's timestamps (ISO 8601, UTC).
    package static func now() -> String { timestamp(Date().timeIntervalSince1970) }

    /// A time given in seconds since 1970 as Algolia writes it.
    static func timestamp(_ seconds: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// A durable index's sizes in bytes: its store's database (`dataSize`) and that with its
    /// write-ahead log (`fileSize`), as the files stand.
    static func storeSizes(_ path: String) -> (data: Int, file: Int) {
        func size(_ p: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: p))?[.size] as? Int) ?? 0 }
        let data = size(path)
        return (data, data + size(path + "-wal"))
    }

    /// Writes `changes` to `index` in one atomic batch; the `taskID` or the error. A write
    /// that adds records or sets settings makes a missing index first, as Algolia does (see
    /// ``creatingIfMissing(_:_:)``).
    func write(_ index: String, _ operation: IndexOperation, _ given: Exchange) async -> Result<Int, HTTPResponse> {
        var x = given
        if Self.creates(operation) { await creatingIfMissing(index, &x) }
        switch await indexOperation(index, operation, x) {
        case .failure(let e): return .failure(.error(e))
        case .success(let reply):
            guard case .number(let seq)? = reply["seq"] else {
                return .failure(.error(500, "no sequence in the reply", code: .internalError))
            }
            return .success(Int(seq))
        }
    }

    /// Whether Algolia makes a missing index for this write: one that adds or updates records,
    /// or sets settings.
    static func creates(_ operation: IndexOperation) -> Bool {
        switch operation {
        case .documents(_, let changes):
            return changes.contains { change in
                switch change {
                case .upsert, .merge: true
                case .delete, .clear, .mergeExisting: false
                }
            }
        case .setSettings: return true
        default: return false
        }
    }

    /// `object` with `objectID` first, set to `id` (as documents are stored and read back).
    static func withObjectID(_ id: JSONValue, _ object: JSONObject) -> JSONObject {
        var out = JSONObject()
        out["objectID"] = id
        for e in object where e.key != "objectID" { out[e.key] = e.value }
        return out
    }

    /// An objectID for an object sent without one.
    static func newObjectID() -> String { UUID().uuidString.lowercased() }

    /// `POST /1/indexes/{index}/batch`: Algolia's actions, applied as one atomic batch.
    func batch(_ index: String, _ x: Exchange) async -> HTTPResponse {
        let items: [JSONValue]
        switch requests(x, of: "{action, body}", limit: WriteDecoder.maxBatch) {
        case .failure(let r): return r
        case .success(let r): items = r.items
        }
        var changes: [DocumentChange] = []
        var objectIDs: [String] = []
        var problems: [String] = []
        for (i, item) in items.enumerated() {
            let path = "requests[\(i)]"
            guard case .object(let o) = item, case .string(let action)? = o["action"] else {
                problems.append("\(path): expected {\"action\": string, \"body\": object}")
                continue
            }
            var document: JSONObject = [:]
            switch o["body"] {
            case .object(let b)?: document = b
            case nil where action == "clear", .null? where action == "clear": break
            case let other:
                problems.append("\(path).body: expected an object, got \(other?.typeName ?? "nothing")")
                continue
            }
            // As the endpoints of one object: deleting needs deleteObject, clearing deleteIndex.
            let right: APIKey.Right? = action == "deleteObject" ? .deleteObject : action == "clear" ? .deleteIndex : nil
            if let right, !x.allows(right, index: index, keysConfigured: !config.keys.isEmpty) {
                return .error(403, "this API key may not \(right.rawValue) on index '\(index)'", code: .forbidden)
            }
            if let problem = Self.unsupportedOperation(in: document, path: "\(path).body") {
                problems.append(problem)
                continue
            }
            switch action {
            case "addObject", "updateObject", "partialUpdateObject", "partialUpdateObjectNoCreate":
                if action == "addObject", document["objectID"] == nil { document["objectID"] = .string(Self.newObjectID()) }
                switch WriteDecoder.document(.object(document), path: "\(path).body") {
                case .failure(let e): problems.append(e.message)
                case .success(let d):
                    switch action {
                    case "partialUpdateObject": changes.append(.merge(d))
                    case "partialUpdateObjectNoCreate": changes.append(.mergeExisting(d))
                    default: changes.append(.upsert(d))
                    }
                    objectIDs.append(d["objectID"]?.stringValue ?? "")
                }
            case "deleteObject":
                guard case .string(let id)? = document["objectID"], !id.isEmpty else {
                    problems.append("\(path).body.objectID: required to delete an object")
                    continue
                }
                changes.append(.delete(id))
                objectIDs.append(id)
            case "clear":
                changes.append(.clear)
            default:
                problems.append(
                    "\(path).action: expected addObject, updateObject, partialUpdateObject, partialUpdateObjectNoCreate, deleteObject or clear, got '\(action)'"
                )
            }
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(20).joined(separator: "; ")
            return .error(
                SearchError(.invalidDocument, "\(problems.count) of \(items.count) actions are invalid, nothing was written: \(shown)"))
        }
        switch await write(index, .documents(op: "batch", changes), x) {
        case .failure(let r): return r
        case .success(let task): return .json(200, ["taskID": .number(Double(task)), "objectIDs": .array(objectIDs.map { .string($0) })])
        }
    }

    /// `POST /1/indexes/{index}`: one object, its `objectID` chosen here if it has none.
    func addObject(_ index: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        let id = body["objectID"] ?? .string(Self.newObjectID())
        return await upsert(index, Self.withObjectID(id, body), path: "body", created: true, x)
    }

    /// `PUT /1/indexes/{index}/{objectID}`: replaces (or creates) the object.
    func replaceObject(_ index: String, id: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        return await upsert(index, Self.withObjectID(.string(id), body), path: "body", created: false, x)
    }

    private func upsert(_ index: String, _ document: JSONObject, path: String, created: Bool, _ x: Exchange) async -> HTTPResponse {
        if let problem = Self.unsupportedOperation(in: document, path: path) { return .error(SearchError(.invalidDocument, problem)) }
        let d: JSONObject
        switch WriteDecoder.document(.object(document), path: path) {
        case .failure(let e): return .error(e)
        case .success(let checked): d = checked
        }
        switch await write(index, .documents(op: "addDocuments", [.upsert(d)]), x) {
        case .failure(let r): return r
        case .success(let task):
            return .json(
                200,
                [
                    created ? "createdAt" : "updatedAt": .string(Self.now()), "taskID": .number(Double(task)),
                    "objectID": d["objectID"] ?? .null,
                ])
        }
    }

    /// Algolia's built-in operations (`{"_operation": "Increment", ...}`), which the daemon does
    /// not apply: refused, naming the attribute, rather than stored as an object.
    static func unsupportedOperation(in document: JSONObject, path: String) -> String? {
        for e in document {
            if case .object(let o) = e.value, o["_operation"] != nil {
                return "\(path).\(e.key): Algolia's _operation updates are not supported; send the new value"
            }
        }
        return nil
    }

    /// `POST /1/indexes/{index}/{objectID}/partial`: sets the attributes sent, keeps the others;
    /// with `createIfNotExists=false`, a missing object stays missing.
    func partialUpdate(_ index: String, id: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        if let problem = Self.unsupportedOperation(in: body, path: "body") {
            return .error(SearchError(.invalidDocument, problem))
        }
        let creates = URLForm.pairs(x.request.query).first { $0.key == "createIfNotExists" }?.value != "false"
        let d: JSONObject
        switch WriteDecoder.document(.object(Self.withObjectID(.string(id), body)), path: "body") {
        case .failure(let e): return .error(e)
        case .success(let checked): d = checked
        }
        switch await write(index, .documents(op: "partialUpdateDocuments", [creates ? .merge(d) : .mergeExisting(d)]), x) {
        case .failure(let r): return r
        case .success(let task):
            return .json(200, ["updatedAt": .string(Self.now()), "taskID": .number(Double(task)), "objectID": .string(id)])
        }
    }

    /// `DELETE /1/indexes/{index}/{objectID}`.
    func deleteObject(_ index: String, id: String, _ x: Exchange) async -> HTTPResponse {
        switch await write(index, .documents(op: "deleteDocuments", [.delete(id)]), x) {
        case .failure(let r): return r
        case .success(let task): return .json(200, ["deletedAt": .string(Self.now()), "taskID": .number(Double(task))])
        }
    }

    /// `POST /1/indexes/{index}/deleteByQuery`: deletes the objects passing the filters sent.
    func deleteByQuery(_ index: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        var params = body
        if case .string(let s)? = body["params"] {
            params["params"] = nil
            for e in AlgoliaParams.form(s) { params[e.key] = e.value }
        }
        let parameters: SearchParameters
        do { parameters = try WriteDecoder.deleteByParameters(params) } catch { return .error(error) }
        switch await write(index, .deleteBy(parameters), x) {
        case .failure(let r): return r
        case .success(let task): return .json(200, ["updatedAt": .string(Self.now()), "taskID": .number(Double(task))])
        }
    }

    /// `POST /1/indexes/{index}/clear`: deletes every object, keeps the settings.
    func clear(_ index: String, _ x: Exchange) async -> HTTPResponse {
        switch await write(index, .documents(op: "clearIndex", [.clear]), x) {
        case .failure(let r): return r
        case .success(let task): return .json(200, ["updatedAt": .string(Self.now()), "taskID": .number(Double(task))])
        }
    }

    /// `PUT /1/indexes/{index}/settings`: lays the settings sent over the index's.
    func setSettings(_ index: String, _ x: Exchange) async -> HTTPResponse {
        let body: JSONObject
        switch bodyObject(x) {
        case .failure(let r): return r
        case .success(let o): body = o
        }
        switch await write(index, .setSettings(body), x) {
        case .failure(let r): return r
        case .success(let task): return .json(200, ["updatedAt": .string(Self.now()), "taskID": .number(Double(task))])
        }
    }

    /// `GET /1/indexes/{index}/task/{taskID}` (and `/1/task/{taskID}`): `published` once the
    /// write is searchable. Writes answer only then, so a task a client was given is published;
    /// one above every number given so far is 404. (An index on another engine numbers its
    /// batches from the daemon's start time, so every id below that, given before a restart or
    /// not, answers `published`.)
    func task(_ index: String?, id: String, _ x: Exchange) -> HTTPResponse {
        guard let task = Int64(id), task >= 0 else { return .error(400, "taskID: expected an integer, got '\(id)'", code: .invalidField) }
        let keyed = !config.keys.isEmpty
        let visible = { (name: String) in
            x.allows(.search, index: name, keysConfigured: keyed) || x.allows(.addObject, index: name, keysConfigured: keyed)
        }
        if let index, !visible(index) { return .error(403, "this API key may not see tasks of index '\(index)'", code: .forbidden) }
        // Deleting, copying and moving answer when done (the index may be gone since).
        if administeredTasks.contains(task) { return .json(200, ["status": "published", "pendingTask": false]) }
        let writable = x.core.catalog.entries.compactMap { e -> (String, (published: Int64, pending: Int))? in
            guard visible(e.id.index) else { return nil }
            return IndexRequests.writeProgress(of: e.searchable).map { (e.id.index, $0) }
        }
        let candidates = index.map { name in writable.filter { $0.0 == name } } ?? writable
        if let index, candidates.isEmpty {
            guard x.core.catalog.entry(index) != nil else { return .error(404, "Index \(index) does not exist", code: .unknownIndex) }
            return .error(404, "Task \(id) does not exist: '\(index)' takes no writes", code: .unknownRequest)
        }
        guard let highest = candidates.map({ $0.1.published }).max(), task <= highest else {
            let anyQueued = candidates.contains { $0.1.pending > 0 }
            if anyQueued { return .json(200, ["status": "notPublished", "pendingTask": true]) }
            return .error(404, "Task \(id) does not exist", code: .unknownRequest)
        }
        return .json(200, ["status": "published", "pendingTask": false])
    }
}
