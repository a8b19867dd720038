import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import Synchronization

/// Where a transport runs a search once its sources are known: on the thread it is on, or
/// elsewhere (the HTTP listener keeps a quick in-memory search on its loop thread, as the
/// socket does, and moves a heavy one off it).
package protocol SearchPlacement: Sendable {
    /// Runs `search` (of `sources`) where it belongs; its result.
    func run(_ sources: [FederatedSource], _ search: @escaping @Sendable () async -> Frame) async -> Frame
    /// Runs work that may take a while without waiting (a facet value search) where it does
    /// not hold the transport's thread.
    func runBlocking(_ work: @escaping @Sendable () async -> Frame) async -> Frame
}

/// The one entry point of the server core for a transport with no event loop of its own to
/// place searches on (the in-process driver, `RequestReplay`; an HTTP listener): a decoded
/// request, for a peer, answered by emitting its frames in order.
///
/// It answers what needs only the catalog: `search` (the sources one after another on the
/// calling task, or in parallel), `searchForFacetValues`, `ping`, and the index operations that
/// go to a durable index's writer (document and settings writes and reads). What needs the
/// daemon's loop (creating and deleting indices, `reload`, `stats`, `indices`, cancelling a
/// request on a connection) is answered `unsupported_operation`: the transport answers it
/// itself or refuses it.
package struct ServerCore: Sendable {
    package let catalog: Catalog
    package let stats: DaemonStats
    package let health: SourceHealth
    /// `limits.maxAnswerBytes`: each source's page is bounded by it as it is built.
    package let answerByteLimit: Int?
    /// The daemon's making and removing of indices (nil: a core that cannot, such as the
    /// in-process driver's).
    package let administration: (any IndexAdministration)?

    package init(
        catalog: Catalog, stats: DaemonStats = DaemonStats(), health: SourceHealth = SourceHealth(), answerByteLimit: Int? = nil,
        administration: (any IndexAdministration)? = nil
    ) {
        self.catalog = catalog
        self.stats = stats
        self.health = health
        self.answerByteLimit = answerByteLimit
        self.administration = administration
    }

    /// This core over another catalog (after an index was made).
    package func with(catalog: Catalog) -> ServerCore {
        ServerCore(catalog: catalog, stats: stats, health: health, answerByteLimit: answerByteLimit, administration: administration)
    }

    /// Answers `request` for `peer` (nil: a peer with no credentials, allowed only what an
    /// index opens to anyone). `emit` gets each frame's line (a large one in pieces: see
    /// ``OutgoingLine``); the last one ends the request.
    /// `placement` decides where a search runs (nil: on the calling task).
    package func answer(
        _ request: Request, peer: PeerIdentity?, inline: FanOut.InlineMode = .sequential,
        placement: (any SearchPlacement)? = nil, emit: @escaping @Sendable (_ line: OutgoingLine) -> Void
    ) async {
        let id = request.id
        switch request.operation {
        case .ping:
            emit(OutgoingLine(Frame.pong(id: id, protocolVersion: ProtocolVersion.current, version: FederatedSearchVersion.string).line()))
        case .search(let search):
            let planned: PlannedSearch
            do {
                planned = try plan(search, id: id, peer: peer)
            } catch {
                emit(OutgoingLine(Frame.error(id: id, index: nil, error: error).line()))
                return
            }
            let search: @Sendable () async -> Frame = {
                await run(planned, inline: inline) { line, _ in emit(line) }
            }
            let done = if let placement { await placement.run(planned.sources, search) } else { await search() }
            emit(OutgoingLine(done.line()))
        case .searchForFacetValues(let facets):
            switch facetValueSource(facets, peer: peer) {
            case .failure(let e): emit(OutgoingLine(Frame.error(id: id, index: nil, error: e).line()))
            case .success(let found):
                let work: @Sendable () async -> Frame = {
                    FacetValueAnswer.frame(found.searchable, request: facets, id: id, timeout: found.timeout)
                }
                let frame = if let placement { await placement.runBlocking(work) } else { await work() }
                emit(OutgoingLine(frame.line()))
            }
        case .index(let name, let operation):
            guard let (write, route) = route(operation, index: name, peer: peer) else {
                return emit(OutgoingLine(unsupported(id, "op: createIndex and deleteIndex")))
            }
            switch route {
            case .answered(let reply): emit(OutgoingLine(replyFrame(reply, index: name, id: id).line()))
            case .refused(let e): emit(OutgoingLine(Frame.error(id: id, index: nil, error: e).line()))
            case .writer(let durable):
                let reply = await withCheckedContinuation { done in durable.submit(write) { done.resume(returning: $0) } }
                emit(OutgoingLine(replyFrame(reply, index: name, id: id).line()))
            case .backend(let backend):
                let reply = await withCheckedContinuation { done in
                    IndexRequests.forwardInOrder(write, to: backend) { done.resume(returning: $0) }
                }
                emit(OutgoingLine(replyFrame(reply, index: name, id: id).line()))
            }
        case .indices, .stats, .reload, .cancel, .subscribe, .unsubscribe, .watch:
            emit(OutgoingLine(unsupported(id, "op: \(request.opName)")))
        }
    }

    /// `request` answered at once on the calling thread, with no task, if it is a search
    /// whose sources `quick` accepts (in memory and fast: nothing to wait for): every line of
    /// the answer, in order. Nil for anything else, to be answered with ``answer``.
    package func answerNow(_ request: Request, peer: PeerIdentity?, quick: ([FederatedSource]) -> Bool) -> [OutgoingLine]? {
        answerNow([request], peer: peer, quick: quick)?.first
    }

    /// Several searches answered at once, one after another, if `quick` accepts all their
    /// sources together (checked before any runs): each one's lines. Nil if one is not a
    /// search or they are not quick together.
    package func answerNow(_ requests: [Request], peer: PeerIdentity?, quick: ([FederatedSource]) -> Bool) -> [[OutgoingLine]]? {
        var planned: [Result<PlannedSearch, SearchError>] = []
        var all: [FederatedSource] = []
        for request in requests {
            guard case .search(let search) = request.operation else { return nil }
            do {
                let p = try plan(search, id: request.id, peer: peer)
                planned.append(.success(p))
                all += p.sources
            } catch {
                planned.append(.failure(error))
            }
        }
        guard quick(all) else { return nil }
        return zip(requests, planned).map { request, p in
            switch p {
            case .failure(let error): return [OutgoingLine(Frame.error(id: request.id, index: nil, error: error).line())]
            case .success(let search):
                let lines = LineCollector()
                let done = runNow(search) { line, _ in lines.append(line) }
                lines.append(OutgoingLine(done.line()))
                return lines.lines
            }
        }
    }

    private func unsupported(_ id: String?, _ what: String) -> [UInt8] {
        Frame.error(
            id: id, index: nil,
            error: SearchError(
                .unsupportedOperation, "\(what) needs the daemon's event loop; send it over the daemon's socket")
        ).line()
    }
}

/// Collects the lines an answer emits (from whichever thread runs it).
package final class LineCollector: Sendable {
    private let store = Mutex<[OutgoingLine]>([])
    package init() {}
    package func append(_ line: OutgoingLine) { store.withLock { $0.append(line) } }
    package var lines: [OutgoingLine] { store.withLock { $0 } }
}
