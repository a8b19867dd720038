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
    /// write timeout, until every node that answers knows it, so that the first searches find
    /// it on whichever node they reach.
    public func createStorage() async throws -> Bool {
        let deadline = writeDeadline()
        let (data, status, url) = try await send(deadline: deadline, retries: .max, writeRequest("GET", []))
        if (200..<300).contains(status) { return false }
        guard status == 404 else { throw Self.httpError(data, status: status, name: name, method: "GET", url: url) }
        let (d, s, u) = try await send(deadline: deadline, retries: .max, collectionsRequest(body: JSONWriter.bytes(.object(config.collectionSchema))))
        // 409: made meanwhile, by another client or by an attempt that seemed to fail.
        if s == 409 { return false }
        _ = try json(d, status: s, method: "POST", url: u)
        await waitUntilEveryNodeKnowsTheCollection(until: deadline)
        return true
    }

    /// Drops the collection (a 404 means it is gone already).
    public func removeStorage() async throws {
        let (data, status, url) = try await send(deadline: writeDeadline(), retries: .max, writeRequest("DELETE", []))
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
                      let answer = try? await transport.perform(request, name: name) else { break }
                if (200..<300).contains(answer.status) { break }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
    }
}
