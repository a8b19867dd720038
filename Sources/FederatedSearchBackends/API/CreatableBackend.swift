import FederatedSearchCore

/// A backend whose storage the daemon can make and remove: `createIndex` with such a backend
/// makes the storage behind it (a Typesense collection, say) unless it exists already, and
/// `deleteIndex` removes it again if, and only if, `createIndex` made it.
public protocol CreatableBackend: Sendable {
    /// Makes the backend's storage if it does not exist; true if it was made by this call.
    func createStorage() async throws -> Bool
    /// Removes the backend's storage (nothing to do if it is gone already).
    func removeStorage() async throws
    /// What names the storage: two backends with the same one share it (so `deleteIndex`
    /// keeps a storage another index still uses).
    var storageIdentity: String { get }
}

extension ClientSearchable: CreatableBackend where Client: CreatableBackend {
    public func createStorage() async throws -> Bool { try await client.createStorage() }
    public func removeStorage() async throws { try await client.removeStorage() }
    public var storageIdentity: String { client.storageIdentity }
}
