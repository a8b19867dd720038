import FederatedSearchCore
import FederatedSearchProtocol
import Foundation

/// A forwarded write is acknowledged once every node that answers serves it: Algolia's
/// clients take a `published` task to mean that every later search sees the write, and a
/// Typesense follower applies the leader's log a moment later. The batch's last change is read
/// back from each node until the node shows it (a written document with the batch's values, a
/// deleted one gone), within the write's deadline (`writeTimeoutSeconds`). A node that cannot
/// be reached, or does not answer within `connectionTimeoutSeconds`, is not waited for (it is
/// not serving); one still behind at the deadline does not hold the write back further: it is
/// durable on the leader. A `deleteBy` and a `clearIndex` are not read back.
extension TypesenseClient {
    /// What a node must show for the change: the document (with these values) or its absence.
    enum Expected {
        /// The document with these values; with `orAbsent`, its absence shows it too (a
        /// partial update of a missing document, which leaves it missing).
        case document(id: String, values: JSONObject, orAbsent: Bool)
        case absent(id: String)
    }

    static func expected(_ change: DocumentChange) -> Expected? {
        switch change {
        case .upsert(let d), .merge(let d), .mergeExisting(let d):
            guard case .string(let id)? = d["objectID"] else { return nil }
            var values = d
            values["objectID"] = nil
            if case .mergeExisting = change { return .document(id: id, values: values, orAbsent: true) }
            return .document(id: id, values: values, orAbsent: false)
        case .delete(let id): return .absent(id: id)
        case .clear: return nil
        }
    }

    /// Waits until every reachable node shows `change` (of write `sequence`), within
    /// `writeTimeoutSeconds`.
    public func waitUntilVisible(_ change: DocumentChange, sequence: Int64) async {
        await waitUntilVisible(change, sequence: sequence, deadline: writeDeadline())
    }

    /// Waits until every reachable node has applied write `sequence`, or until `deadline`: a
    /// node has when it shows the write's change. A later write may change the same document
    /// again, and the node then never shows this one's: the wait also ends once every node
    /// was seen to serve a later write (a node applies the leader's log in order), which the
    /// last write's own wait sees when the writes stop.
    func waitUntilVisible(_ last: DocumentChange, sequence: Int64, deadline: ContinuousClock.Instant) async {
        guard config.nodes.count > 1, let expected = Self.expected(last) else { return }
        for node in config.nodes {
            // nil: the node cannot be asked, so it is not waited for.
            while let shows = await self.shows(expected, on: node, deadline: deadline), !shows {
                if writeOrder.isVisible(sequence) { return }
                if ContinuousClock.now + .milliseconds(10) >= deadline { return }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        writeOrder.recordVisible(through: sequence)
    }

    /// Whether `node` shows the change; nil if it cannot be asked (unreachable, or no answer).
    private func shows(_ expected: Expected, on node: URL, deadline: ContinuousClock.Instant) async -> Bool? {
        let id: String
        switch expected {
        case .document(let i, _, _), .absent(let i): id = i
        }
        guard var request = try? self.request("GET", on: node, ["collections", config.collection, "documents", id]) else { return nil }
        request.timeout = max(.milliseconds(1), min(config.connectionTimeout, deadline - .now))
        guard let (body, status) = try? await transport.perform(request, name: name) else { return nil }
        switch expected {
        case .absent: return status == 404
        case .document(_, let values, let orAbsent):
            if status == 404 { return orAbsent }
            guard status == 200, case .object(let o)? = try? JSONParser.parse(body) else { return nil }
            let stored = Self.objectFromTypesense(o)
            return values.allSatisfy { stored[$0.key] == $0.value }
        }
    }
}
