import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore

/// The collection made and removed for `createIndex` and `deleteIndex`, with the same node
/// failover and write timeout as forwarded writes.
extension TypesenseClient: CreatableBackend {
    /// Makes the collection from ``TypesenseConfig/collectionSchema`` unless it exists (an
    /// existing collection is used as it is, whatever its schema); then waits, up to the
    /// write timeout, until each node that answers knows it, so that the first searches find
    /// it on whichever node they reach (a node still without it then is not waited for longer).
    public func createStorage() async throws -> Bool {
        let deadline = writeDeadline()
        let (data, status, url) = try await send(deadline: deadline, retries: .max, health: writeNodes, writeRequest("GET", []))
        if (200..<300).contains(status) { return false }
        guard status == 404 else { throw Self.httpError(data, status: status, name: name, method: "GET", url: url) }
        do {
            let (d, s, u) = try await send(
                deadline: deadline, retries: .max, health: writeNodes,
                collectionsRequest(body: JSONWriter.bytes(.object(config.collectionSchema))))
            // 409 after the 404: an attempt that seemed to fail (a node lost mid-request) had
            // made it. (Another client making it in that instant would be taken as ours too.)
            if s != 409 { _ = try json(d, status: s, method: "POST", url: u) }
        } catch {
            // The POST may have been applied all the same: leave no collection behind.
            try? await removeStorage()
            throw error
        }
        await waitUntilEveryNodeKnowsTheCollection(until: deadline)
        return true
    }

    /// The collection on the cluster: its name and the cluster's first node (sorted), as nodes
    /// of one cluster share their collections.
    public var storageIdentity: String {
        "typesense:\(config.collection)@\(config.nodes.map(\.absoluteString).sorted().first ?? "")"
    }

    /// Drops the collection (a 404 means it is gone already).
    public func removeStorage() async throws {
        let (data, status, url) = try await send(deadline: writeDeadline(), retries: .max, health: writeNodes, writeRequest("DELETE", []))
        guard (200..<300).contains(status) || status == 404 else {
            throw Self.httpError(data, status: status, name: name, method: "DELETE", url: url)
        }
    }

    /// Asks each node in turn for the collection until it answers 200; a node that cannot be
    /// reached is not waited for (it learns of the collection from the cluster when it is back).
    private func waitUntilEveryNodeKnowsTheCollection(until deadline: ContinuousClock.Instant) async {
        for node in config.nodes {
            while ContinuousClock.now < deadline {
                guard let request = try? writeRequest("GET", [])(node),
                    let answer = try? await transport.perform(request, name: name)
                else { break }
                if (200..<300).contains(answer.status) { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
