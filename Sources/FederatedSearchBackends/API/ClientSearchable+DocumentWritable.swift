import FederatedSearchCore
import FederatedSearchProtocol

/// A `SearchClient` that takes writes makes its searchable take them.
extension ClientSearchable: DocumentWritable where Client: DocumentWritable {
    public var writeOrder: WriteOrder { client.writeOrder }
    public func apply(_ changes: [DocumentChange]) async throws -> DocumentWriteResult { try await client.apply(changes) }
    public func applyGroup(_ batches: [[DocumentChange]]) async -> [Result<DocumentWriteResult, SearchError>] {
        await client.applyGroup(batches)
    }
    public func deleteBy(_ parameters: SearchParameters) async throws -> DocumentWriteResult { try await client.deleteBy(parameters) }
    public func documents(_ ids: [String]) async throws -> [JSONObject?] { try await client.documents(ids) }
    public func waitUntilVisible(_ change: DocumentChange, sequence: Int64) async {
        await client.waitUntilVisible(change, sequence: sequence)
    }
}
