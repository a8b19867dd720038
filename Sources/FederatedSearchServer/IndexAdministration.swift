import FederatedSearchCore

/// What only the daemon that owns the catalog can do: make and remove indices. A transport
/// with no loop of its own (the HTTP API) asks the daemon through this; its caller has checked
/// the requester's rights.
package protocol IndexAdministration: Sendable {
    /// Makes an embedded durable index `name` with `settings`; done once it serves.
    func createIndex(_ name: String, settings: JSONObject) async -> Result<Void, SearchError>
    /// Removes index `name` (one made by `createIndex`, not one of the config file) and its
    /// store, after the writes queued before.
    func deleteIndex(_ name: String) async -> Result<Void, SearchError>
    /// The catalog as it is now (it changes as indices are made and removed).
    func currentCatalog() async -> Catalog
}
