import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// The daemon's answer to one request line with no socket and no loop: the line is decoded,
/// planned against the catalog and searched as a connection would do it (the sources one
/// after another on the calling task), and the frames come back in order.
///
/// For the fuzz harness (`Tests/Fuzz`), which drives the request path with arbitrary lines.
/// It answers the ops that reach the engine and the durable indices' writer (`search`,
/// `searchForFacetValues`, document and settings writes and reads); creating and deleting
/// indices, cancellations and the loop's own ops need the loop or a connection and are not
/// run here. There is no peer: what an index opens to anyone is allowed, the rest refused as
/// to an unknown peer.
package enum RequestReplay {
    package static func answer(_ line: [UInt8], catalog: Catalog) async -> [[UInt8]] {
        let request: Request
        switch RequestDecoder.decode(line) {
        case .failure(let e): return [Frame.error(id: e.id, index: nil, error: e.error).line()]
        case .success(let r): request = r
        }
        switch request.operation {
        case .search(let search):
            return await answer(search, id: request.id, catalog: catalog)
        case .searchForFacetValues(let facets):
            switch FacetValueAnswer.source(facets, in: catalog, peer: nil) {
            case .failure(let e): return [Frame.error(id: request.id, index: nil, error: e).line()]
            case .success(let found):
                return [FacetValueAnswer.frame(found.searchable, request: facets, id: request.id, timeout: found.timeout).line()]
            }
        case .index(let name, let operation):
            // Creating and deleting an index need the loop.
            guard let write = IndexRequests.write(for: operation) else { return [] }
            switch IndexRequests.durableIndex(name, in: catalog, peer: nil, forWriting: !write.onlyReads) {
            case .failure(let e): return [Frame.error(id: request.id, index: nil, error: e).line()]
            case .success(let durable):
                let reply = await withCheckedContinuation { done in durable.submit(write) { done.resume(returning: $0) } }
                return [IndexRequests.replyFrame(reply, index: name, id: request.id).line()]
            }
        default:
            return []
        }
    }

    private static func answer(_ request: SearchRequest, id: String?, catalog: Catalog) async -> [[UInt8]] {
        let sources: [FederatedSource]
        let plan: MergePlan
        do {
            (sources, plan) = try SearchExecutor.plan(request, in: catalog, peer: nil)
        } catch {
            return [Frame.error(id: id, index: nil, error: error).line()]
        }
        let frames = Mutex<[[UInt8]]>([])
        let done = await SearchExecutor.run(
            id: id, sources: sources, plan: plan, stats: DaemonStats(), health: SourceHealth()
        ) { line, _ in
            frames.withLock { $0.append(line) }
        }
        return frames.withLock { $0 } + [done.line()]
    }
}
