import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol

/// The stages of an answer, for a transport that admits, places and ends requests itself: the
/// daemon's socket, which queues searches past its limits, runs quick ones on its loop thread,
/// and cancels superseded ones. ``ServerCore/answer(_:peer:inline:placement:emit:)`` is made of
/// the same stages, so a request answers identically on every transport.
extension ServerCore {
    /// A search checked and planned for a peer before any work starts: its sources (adjusted
    /// for the merge, each page bounded by ``answerByteLimit``) and its merge plan.
    package struct PlannedSearch: Sendable {
        package let id: String?
        package let sources: [FederatedSource]
        package let plan: MergePlan
        /// The names its sources answer under.
        package var names: [String] { sources.map(\.name) }
    }

    /// Plans request `id`'s search for `peer`; throws the error its one error frame carries.
    package func plan(_ search: SearchRequest, id: String?, peer: PeerIdentity?) throws(SearchError) -> PlannedSearch {
        let (sources, plan) = try SearchExecutor.plan(search, in: catalog, peer: peer, answerByteLimit: answerByteLimit)
        return PlannedSearch(id: id, sources: sources, plan: plan)
    }

    /// Runs a planned search: `send` gets every frame but the last, which is returned (see
    /// ``SearchExecutor/run(id:sources:plan:stats:health:probes:inline:send:)``).
    package func run(
        _ search: PlannedSearch, probes: HeldProbes = HeldProbes(), inline: FanOut.InlineMode = .sequential,
        executor: (any TaskExecutor)? = nil, send: @escaping @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void
    ) async -> Frame {
        await SearchExecutor.run(
            id: search.id, sources: search.sources, plan: search.plan, stats: stats, health: health, probes: probes,
            inline: inline, executor: executor, send: send)
    }

    /// Runs a planned search whose sources all answer from memory on the calling thread, with
    /// no task (see ``SearchExecutor/runNow(id:sources:plan:stats:health:send:)``).
    package func runNow(_ search: PlannedSearch, send: @escaping @Sendable (_ line: OutgoingLine, _ moreSoon: Bool) -> Void) -> Frame {
        SearchExecutor.runNow(id: search.id, sources: search.sources, plan: search.plan, stats: stats, health: health, send: send)
    }

    /// The index a facet value search asks, checked for `peer`, and its timeout.
    package func facetValueSource(
        _ request: FacetValuesRequest, peer: PeerIdentity?
    ) -> Result<(searchable: any FacetValueSearchable, timeout: Duration), SearchError> {
        FacetValueAnswer.source(request, in: catalog, peer: peer)
    }

    /// The frame answering an index operation (a `getDocuments` answer bounded by
    /// ``answerByteLimit``).
    package func replyFrame(_ result: Result<WriteReply, SearchError>, index: String, id: String?) -> Frame {
        IndexRequests.replyFrame(result, index: index, id: id, answerByteLimit: answerByteLimit)
    }

    /// Where an index operation goes for `peer` (answered at once, refused, an index's writer
    /// or another backend), with the write it becomes; nil for `createIndex` and `deleteIndex`,
    /// which need the transport's event loop.
    package func route(
        _ operation: IndexOperation, index: String, peer: PeerIdentity?
    ) -> (write: IndexWrite, route: IndexRequests.Route)? {
        guard let write = IndexRequests.write(for: operation) else { return nil }
        return (write, IndexRequests.route(write, index: index, in: catalog, peer: peer))
    }
}
