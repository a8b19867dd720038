import FederatedSearchCore
import FederatedSearchProtocol

extension Catalog {
    /// The `indices` payload: the indices `peer` may search.
    package func indicesPayload(visibleTo peer: PeerIdentity?) -> JSONObject {
        let list: [JSONValue] = entries.filter { $0.access.maySee(peer) }.map { e in
            let d = e.searchable.description
            var o = JSONObject()
            o.appendUnchecked("name", .string(e.id.index))
            o.appendUnchecked("backend", .string(e.kind))
            o.appendUnchecked("documents", d.documentCount.map { .number(Double($0)) } ?? .null)
            o.appendUnchecked("searchableAttributes", .array(d.searchableAttributes.map { .string($0) }))
            o.appendUnchecked("attributesForFaceting", .array(d.attributesForFaceting.map { .string($0) }))
            // Whether it takes writes: an embedded index with a dataDir, or a backend that
            // writes are forwarded to (a Typesense collection).
            o.appendUnchecked("writable", .bool(e.searchable is DurableIndex || e.searchable is any DocumentWritable))
            if e.fingerprint == Catalog.createdFingerprint { o.appendUnchecked("createdBy", "createIndex") }
            let t = e.defaultTimeout.components
            o.appendUnchecked("timeoutMs", .number(Double(t.seconds * 1000 + t.attoseconds / 1_000_000_000_000_000)))
            return .object(o)
        }
        return JSONObject([("indices", .array(list))])
    }
}
