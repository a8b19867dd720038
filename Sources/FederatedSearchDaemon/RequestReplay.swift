import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// The daemon's answer to one request line with no socket and no loop: the line is decoded,
/// planned against the catalog and searched as a connection would do it (the sources one
/// after another on the calling task), and the frames come back in order.
///
/// For the fuzz harness (`Tests/Fuzz`), which drives the request path with arbitrary lines.
/// It answers the read-only ops that reach the engine (`search`, `searchForFacetValues`);
/// writes, cancellations and the loop's own ops need a connection and are not run here. There
/// is no peer: indices open to anyone are searched, others are refused as to an unknown peer.
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
            switch Connection.facetSource(facets, in: catalog, peer: nil) {
            case .failure(let e): return [Frame.error(id: request.id, index: nil, error: e).line()]
            case .success(let found):
                return [Connection.facetHitsFrame(found.searchable, request: facets, id: request.id, timeout: found.timeout).line()]
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
