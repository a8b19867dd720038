import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
import FederatedSearchProtocol

/// Writes forwarded to the collection, through the cluster's import and documents API, with the
/// same node failover as searches, tried again for up to `writeTimeoutSeconds` (a cluster whose
/// leader died takes writes again once it has elected another; every write here is idempotent,
/// so one retried after a node failed mid-request does no harm). `objectID` is Typesense's
/// `id`. The answer gives no document count: a cluster's count is only eventually the same on
/// every node.
///
/// - upserts: `POST .../documents/import?action=upsert` (JSON lines);
/// - partial updates: `action=emplace` (a missing document is created), or `action=update` for
///   `createIfNotExists: false` (a missing document is skipped, as Algolia does);
/// - deletes: `DELETE .../documents?filter_by=id:[...]`; `deleteBy`: the filters translated as
///   for searches; `clearIndex`: the collection dropped and created again with its schema;
/// - reads: `GET .../documents/{id}`.
///
/// Consecutive changes of one kind go in one request, across the batches queued together
/// (``applyGroup(_:)``). Typesense's import is not atomic: when
/// some documents fail, the others of the batch are written, and the error names each failed
/// document's position in the batch and Typesense's reason.
extension TypesenseClient: DocumentWritable {
    public func apply(_ changes: [DocumentChange]) async throws -> DocumentWriteResult {
        try await applyGroup([changes])[0].get()
    }

    /// The batches' changes as one list: a run of one kind goes in one request, across the
    /// batches' boundaries, so batches queued together cost one import. Each batch is answered
    /// on its own: its refused documents named by their position in it. A request that fails
    /// (the cluster unreachable past `writeTimeoutSeconds`) fails the batches it carried and
    /// those after it, which are not tried; the batches before it were written.
    public func applyGroup(_ batches: [[DocumentChange]]) async -> [Result<DocumentWriteResult, SearchError>] {
        let all = batches.flatMap { $0 }
        var batchOf: [Int] = []
        var firstPosition: [Int] = []
        for (b, batch) in batches.enumerated() {
            firstPosition.append(batchOf.count)
            batchOf += Array(repeating: b, count: batch.count)
        }
        var refused: [Int: [String]] = [:]
        var failedFrom = batches.count
        var failure: SearchError?
        var start = 0
        while start < all.count {
            var end = start + 1
            while end < all.count, Self.kind(all[end]) == Self.kind(all[start]) { end += 1 }
            do {
                for (position, reason) in try await self.applyRun(Array(all[start..<end]), offset: start) {
                    let b = batchOf[position]
                    refused[b, default: []].append("documents[\(position - firstPosition[b])]: Typesense: \(reason)")
                }
            } catch {
                failedFrom = batchOf[start]
                failure = error as? SearchError ?? SearchError(.backendError, "\(error)")
                break
            }
            start = end
        }
        return batches.indices.map { b in
            if b >= failedFrom, let failure { return .failure(failure) }
            if let failures = refused[b] {
                return .failure(
                    SearchError(
                        .invalidField,
                        "\(failures.prefix(5).joined(separator: "; "))"
                            + (failures.count > 5 ? "; and \(failures.count - 5) more" : "")
                            + " (Typesense's import is not atomic: the batch's other documents were written)"))
            }
            // Answered once every node serves it: the daemon reads the group's last change back
            // (a clear has nothing to read back).
            let last: DocumentChange? = batches[b].last.flatMap { change -> DocumentChange? in
                if case .clear = change { return nil }
                return change
            }
            return .success(DocumentWriteResult(sequence: writeOrder.nextSequence(), documents: nil, readBack: last))
        }
    }

    public func deleteBy(_ parameters: SearchParameters) async throws -> DocumentWriteResult {
        guard let filter = parameters.filter else {
            throw SearchError(.missingField, "filters: deleteBy needs filters (clearIndex deletes every document)")
        }
        // A radius would narrow the deletion in an embedded index; Typesense's filter here
        // would ignore it and delete more.
        guard parameters.aroundLatLng == nil, parameters.aroundRadius == nil else {
            throw SearchError(.invalidField, "params.aroundLatLng: deleteBy on a Typesense index takes filters only, not a radius")
        }
        let filterBy = try TypesenseFilter.translate(filter)
        let deleted = try await deleteWhere(filterBy)
        return DocumentWriteResult(sequence: writeOrder.nextSequence(), documents: nil, deleted: deleted)
    }

    public func documents(_ ids: [String]) async throws -> [JSONObject?] {
        var out: [JSONObject?] = []
        for id in ids {
            let (data, status, url) = try await self.send(
                deadline: writeDeadline(), retries: .max, health: writeNodes, self.writeRequest("GET", ["documents", id]))
            if status == 404 {
                out.append(nil)
                continue
            }
            out.append(Self.objectFromTypesense(try self.json(data, status: status, method: "GET", url: url)))
        }
        return out
    }

    // MARK: - The requests

    /// The kinds of change that go in one request together.
    private enum Kind: Equatable { case upsert, emplace, update, delete, clear }

    private static func kind(_ c: DocumentChange) -> Kind {
        switch c {
        case .upsert: .upsert
        case .merge: .emplace
        case .mergeExisting: .update
        case .delete: .delete
        case .clear: .clear
        }
    }

    /// One run of changes of one kind; the refused ones, by position in the whole group.
    private func applyRun(_ run: [DocumentChange], offset: Int) async throws -> [(position: Int, reason: String)] {
        var documents: [JSONObject] = []
        var ids: [String] = []
        for c in run {
            switch c {
            case .upsert(let d), .merge(let d), .mergeExisting(let d): documents.append(d)
            case .delete(let id): ids.append(id)
            case .clear: break
            }
        }
        switch Self.kind(run[0]) {
        case .upsert: return try await importDocuments(documents, action: "upsert", offset: offset, skipMissing: false)
        case .emplace: return try await importDocuments(documents, action: "emplace", offset: offset, skipMissing: false)
        case .update: return try await importDocuments(documents, action: "update", offset: offset, skipMissing: true)
        case .delete:
            for chunk in stride(from: 0, to: ids.count, by: 100) {
                let some = ids[chunk..<min(ids.count, chunk + 100)]
                _ = try await deleteWhere("id:[\(try some.map { try TypesenseFilter.value($0) }.joined(separator: ","))]")
            }
            return []
        case .clear:
            try await recreateCollection()
            return []
        }
    }

    /// `POST .../documents/import?action=...`: each document as a JSON line with `id`; the
    /// refused lines (a missing document skipped with `skipMissing`), by position after `offset`.
    private func importDocuments(
        _ documents: [JSONObject], action: String, offset: Int, skipMissing: Bool
    ) async throws -> [(position: Int, reason: String)] {
        var body: [UInt8] = []
        for (i, d) in documents.enumerated() {
            if i > 0 { body.append(0x0A) }
            JSONWriter.write(.object(Self.typesenseDocument(d)), into: &body)
        }
        let (data, status, url) = try await send(
            deadline: writeDeadline(), retries: .max, health: writeNodes,
            writeRequest(
                "POST", ["documents", "import"], query: [("action", action)], body: body, contentType: "text/plain"))
        guard (200..<300).contains(status) else { throw Self.httpError(data, status: status, name: name, method: "POST", url: url) }
        var failures: [(position: Int, reason: String)] = []
        let lines = data.split(separator: 0x0A)
        guard lines.count == documents.count else {
            throw SearchError(
                .backendBadResponse, "\(name): the import answered \(lines.count) lines for \(documents.count) documents")
        }
        for (i, line) in lines.enumerated() {
            guard case .object(let o)? = try? JSONParser.parse([UInt8](line)) else {
                throw SearchError(.backendBadResponse, "\(name): import answer line \(i + 1) is not a JSON object")
            }
            if o["success"] == true { continue }
            if skipMissing, o["code"]?.intValue == 404 { continue }
            failures.append((offset + i, o["error"]?.stringValue ?? "not written"))
        }
        return failures
    }

    /// `DELETE .../documents?filter_by=...`: how many documents it deleted.
    private func deleteWhere(_ filterBy: String) async throws -> Int {
        let (data, status, url) = try await send(
            deadline: writeDeadline(), retries: .max, health: writeNodes,
            writeRequest(
                "DELETE", ["documents"], query: [("filter_by", filterBy), ("batch_size", "500")]))
        let o = try json(data, status: status, method: "DELETE", url: url)
        return o["num_deleted"]?.intValue ?? 0
    }

    /// Every document deleted: the collection is dropped and created again with its schema,
    /// its synonyms and its overrides (curations).
    private func recreateCollection() async throws {
        let deadline = writeDeadline()
        let (data, status, url) = try await send(deadline: deadline, retries: .max, health: writeNodes, writeRequest("GET", []))
        var schema = try json(data, status: status, method: "GET", url: url)
        for key in ["num_documents", "created_at", "num_memory_shards"] { schema[key] = nil }
        var kept: [(kind: String, items: [JSONObject])] = []
        for kind in ["synonyms", "overrides"] {
            let (d, st, u) = try await send(deadline: deadline, retries: .max, health: writeNodes, writeRequest("GET", [kind]))
            kept.append((kind, (try json(d, status: st, method: "GET", url: u)[kind]?.arrayValue ?? []).compactMap(\.objectValue)))
        }
        let (d2, s2, u2) = try await send(deadline: deadline, retries: .max, health: writeNodes, writeRequest("DELETE", []))
        guard (200..<300).contains(s2) || s2 == 404 else { throw Self.httpError(d2, status: s2, name: name, method: "DELETE", url: u2) }
        let (d3, s3, u3) = try await send(
            deadline: deadline, retries: .max, health: writeNodes, collectionsRequest(body: JSONWriter.bytes(.object(schema))))
        // 409: an attempt that seemed to fail had created it already.
        if s3 != 409 { _ = try json(d3, status: s3, method: "POST", url: u3) }
        for (kind, items) in kept {
            for item in items {
                guard let id = item["id"]?.stringValue else { continue }
                var body = item
                body["id"] = nil
                let (d, st, u) = try await send(
                    deadline: deadline, retries: .max, health: writeNodes,
                    writeRequest(
                        "PUT", [kind, id], body: JSONWriter.bytes(.object(body))))
                _ = try json(d, status: st, method: "PUT", url: u)
            }
        }
    }

    /// When a write stops being tried again.
    func writeDeadline() -> ContinuousClock.Instant { .now + config.writeTimeout }

    /// A 2xx answer's JSON object, else the request's error.
    func json(_ data: [UInt8], status: Int, method: String, url: String) throws -> JSONObject {
        guard (200..<300).contains(status) else { throw Self.httpError(data, status: status, name: name, method: method, url: url) }
        guard case .object(let o)? = try? JSONParser.parse(data) else {
            throw SearchError(.backendBadResponse, "\(name): the answer to \(method) \(url) is not a JSON object")
        }
        return o
    }

    /// A request on the collection (`/collections/{collection}/<path...>`) for a node, with
    /// the API key header; each attempt gets `connectionTimeoutSeconds`, as a search's does.
    func writeRequest(
        _ method: String, _ path: [String], query: [(String, String)] = [], body: [UInt8]? = nil, contentType: String = "application/json"
    ) -> (URL) throws(SearchError) -> OutgoingHTTPRequest {
        { node throws(SearchError) in
            try self.request(
                method, on: node, ["collections", self.config.collection] + path, query: query, body: body, contentType: contentType)
        }
    }

    /// `POST /collections` with `body`.
    func collectionsRequest(body: [UInt8]) -> (URL) throws(SearchError) -> OutgoingHTTPRequest {
        { node throws(SearchError) in
            try self.request("POST", on: node, ["collections"], body: body, contentType: "application/json")
        }
    }

    /// A document as Typesense stores it: `objectID` as its `id`.
    static func typesenseDocument(_ d: JSONObject) -> JSONObject {
        var o = JSONObject()
        if let id = d["objectID"] { o["id"] = id.stringValue.map(JSONValue.string) ?? id }
        for e in d where e.key != "objectID" && e.key != "id" { o.appendUnchecked(e.key, e.value) }
        return o
    }

    /// A document as Typesense answers it: its `id` as `objectID`.
    static func objectFromTypesense(_ d: JSONObject) -> JSONObject {
        var o = JSONObject()
        if let id = d["id"] { o["objectID"] = id }
        for e in d where e.key != "id" { o.appendUnchecked(e.key, e.value) }
        return o
    }
}
