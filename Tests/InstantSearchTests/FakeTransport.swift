import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization
@testable import InstantSearch

/// A transport with no socket: it records each request and lets the test answer it with the
/// frames it chooses, in the order it chooses (the fake of the searcher tests).
final class FakeTransport: SearchTransport {
    struct Sent: Sendable {
        let id: String
        let operation: Request.Operation
        let continuation: AsyncThrowingStream<Frame, any Error>.Continuation
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
            s.append(Sent(id: id, operation: operation, continuation: continuation))
            return id
        }
        return Response(id: id, stream: stream)
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
        for f in frames { r.continuation.yield(f.withID(r.id)) }
        if end { r.continuation.finish() }
    }

    /// Ends request `n` with a transport error.
    func fail(_ n: Int, _ error: ClientError) { requests[n].continuation.finish(throwing: error) }
}

/// Results of one index for `query`.
func results(_ index: String, query: String, titles: [String], page: Int = 0, nbPages: Int = 1,
             facets: [FacetCounts] = [], stats: [FacetStats] = []) -> SearchResults {
    SearchResults(
        hits: titles.enumerated().map { Hit(objectID: "\(index)-\(page)-\($0.offset)", attributes: ["title": .string($0.element)], rankingScore: 0.5) },
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
