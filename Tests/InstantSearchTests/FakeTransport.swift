import Dispatch
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization
@testable import InstantSearch

/// A transport with no socket: it records each request and lets the test answer it with the
/// frames it chooses, in the order it chooses (the fake of the searcher tests). Searchers send
/// with a main-actor handler, and an answer reaches it as the connection's do: one block on
/// the main queue per batch, in the order answered, none once the request is cancelled.
final class FakeTransport: SearchTransport {
    struct Sent: Sendable {
        let id: String
        let operation: Request.Operation
        /// How its answer is delivered: a `Response` stream, or the handler and its handle.
        let continuation: AsyncThrowingStream<Frame, any Error>.Continuation?
        let handler: (@MainActor @Sendable (ResponseEvent) -> Void)?
        let handle: RequestHandle?
    }

    private let sent = Mutex<[Sent]>([])
    private let stateContinuation = Mutex<AsyncStream<ConnectionState>.Continuation?>(nil)
    /// When set, `send` fails with it.
    let failure = Mutex<ClientError?>(nil)

    func send(_ operation: Request.Operation) throws(ClientError) -> Response {
        if let f = failure.withLock({ $0 }) { throw f }
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Frame.self)
        let id = sent.withLock { s in
            let id = "f\(s.count + 1)"
            s.append(Sent(id: id, operation: operation, continuation: continuation, handler: nil, handle: nil))
            return id
        }
        return Response(id: id, stream: stream)
    }

    func send(
        _ operation: Request.Operation, onMainActor handler: @escaping @MainActor @Sendable (ResponseEvent) -> Void
    ) throws(ClientError) -> RequestHandle {
        if let f = failure.withLock({ $0 }) { throw f }
        return sent.withLock { s in
            let handle = RequestHandle(id: "f\(s.count + 1)") {}
            s.append(Sent(id: handle.id, operation: operation, continuation: nil, handler: handler, handle: handle))
            return handle
        }
    }

    /// Hands `event` to request `r`'s handler as the connection would: in a main-queue block.
    private func deliver(_ r: Sent, _ events: [ResponseEvent]) {
        guard let handler = r.handler, let handle = r.handle else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                for e in events where !handle.isCancelled { handler(e) }
            }
        }
    }

    func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self)
        stateContinuation.withLock { $0 = continuation }
        return stream
    }

    /// Announces a link state to the searchers.
    func announce(_ state: ConnectionState) { _ = stateContinuation.withLock { $0?.yield(state) } }

    var requests: [Sent] { sent.withLock { $0 } }

    /// The search requests sent, in order.
    var searches: [SearchRequest] {
        requests.compactMap { if case .search(let s) = $0.operation { return s } else { return nil } }
    }

    /// Answers request `n` (from 0) with `frames`; `end` finishes its stream.
    func answer(_ n: Int, _ frames: [Frame], end: Bool = true) {
        let r = requests[n]
        if let c = r.continuation {
            for f in frames { c.yield(f.withID(r.id)) }
            if end { c.finish() }
        } else {
            deliver(r, [.frames(frames.map { $0.withID(r.id) })] + (end ? [.ended] : []))
        }
    }

    /// Ends request `n` with a transport error.
    func fail(_ n: Int, _ error: ClientError) {
        let r = requests[n]
        if let c = r.continuation { c.finish(throwing: error) } else { deliver(r, [.failed(error)]) }
    }
}

/// Results of one index for `query`.
func results(
    _ index: String, query: String, titles: [String], page: Int = 0, nbPages: Int = 1,
    facets: [FacetCounts] = [], stats: [FacetStats] = []
) -> SearchResults {
    SearchResults(
        hits: titles.enumerated().map {
            Hit(objectID: "\(index)-\(page)-\($0.offset)", attributes: ["title": .string($0.element)], rankingScore: 0.5)
        },
        nbHits: titles.count * nbPages, page: page, nbPages: nbPages, hitsPerPage: titles.count, facets: facets,
        facetsStats: stats, processingTimeMS: 0.3, query: query, index: index)
}

/// Lets the searchers' tasks (on the main actor) take what the fake delivered: they run as
/// soon as the test's task yields, so a few yields and short sleeps give them every turn they
/// need (nothing here waits on I/O).
@MainActor
func settle() async {
    for _ in 0..<20 {
        for _ in 0..<10 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(1))
    }
}
