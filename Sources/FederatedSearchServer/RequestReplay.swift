import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// The in-process driver of the server core: one request line answered with no socket and no
/// loop, through ``ServerCore/answer(_:peer:inline:emit:)`` (the sources one after another on
/// the calling task, as a connection's search on the loop runs them), the frames back in order.
///
/// For the fuzz harness (`Tests/Fuzz`), which drives the request path with arbitrary lines, and
/// the tests of the request path. There is no peer: what an index opens to anyone is allowed,
/// the rest refused as to an unknown peer. Operations that need the daemon's loop get
/// `unsupported_operation`.
package enum RequestReplay {
    package static func answer(_ line: [UInt8], catalog: Catalog) async -> [[UInt8]] {
        let request: Request
        switch RequestDecoder.decode(line) {
        case .failure(let e) where e.index != nil:
            return [Frame.error(id: e.id, index: nil, error: catalog.refusal(of: e, peer: nil)).line()]
        case .failure(let e): return [Frame.error(id: e.id, index: nil, error: e.error).line()]
        case .success(let r): request = r
        }
        let frames = Mutex<[[UInt8]]>([])
        await ServerCore(catalog: catalog).answer(request, peer: nil) { line in frames.withLock { $0.append(line.bytes) } }
        return frames.withLock { $0 }
    }
}
