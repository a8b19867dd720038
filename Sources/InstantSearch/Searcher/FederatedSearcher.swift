import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Searches several indices in one request, as the daemon federates them: each source's
/// results are delivered as its frame arrives (``onIndexResults``, and the source's own
/// ``Source/onResults``), then the merged list (``onMergedResults``), then what each source
/// did (``onStatus``).
///
/// Each search carries the searcher's `session` and the next `seq`, so the daemon cancels the
/// older keystrokes it still runs; and no frame of an older keystroke is delivered after a
/// newer one's (``KeystrokeSequencer``). After the daemon comes back from a restart, the last
/// search that failed for it is sent again.
///
/// Live (``liveMode``), a search is a subscription: after its answer, the daemon sends what
/// changes in it as writes land, and the searcher delivers each changed page through the same
/// events as an answer (a source's ``Source/onResults``, ``onIndexResults``,
/// ``onMergedResults``), so the interactors and their controllers follow it unchanged; and
/// ``onLiveUpdate`` says which hits are new or changed.
@MainActor
public final class FederatedSearcher: Searcher {
    /// One source's answer to one search.
    public struct IndexResults: Sendable {
        public let source: String
        public let results: SearchResults
        /// The search (keystroke) it answers.
        public let seq: Int
    }

    /// How a search ended: the `done` frame's report.
    public struct Status: Sendable, Equatable {
        public let seq: Int
        public let query: String
        public let status: DoneStatus
        /// Per source, in request order.
        public let sources: [SourceStatusItem]
        public let ms: Double

        public init(seq: Int, query: String, status: DoneStatus, sources: [SourceStatusItem], ms: Double) {
            self.seq = seq
            self.query = query
            self.status = status
            self.sources = sources
            self.ms = ms
        }
    }

    public let transport: any SearchTransport
    public private(set) var sources: [Source] = []
    /// The query text; a new one starts every source again from its first page.
    public var query: String? {
        didSet {
            guard oldValue != query else { return }
            for s in sources { s.parameters.page = 0 }
            onQueryChanged.fire(query)
        }
    }
    /// Parameters for every source (each source's own, where not at their defaults, are laid
    /// over them; filters are combined).
    public var parameters = SearchParameters()
    /// The request's `merge` object (strategy, limit, quotas); nil: the daemon's default.
    public var merge: JSONObject?
    /// The request's `mergeFacets` object; nil: no merged facets.
    public var mergeFacets: JSONObject?
    /// Facets merged under one name across indices: `["brand": ["products": "supplier"]]`.
    public var facetAliases: [String: [String: String]] = [:]
    /// Each source's deadline; nil: the daemon's configured one.
    public var timeoutMs: Int?

    public let onQueryChanged = Observer<String?>()
    public let isLoading = Observer<Bool>()
    public let onError = Observer<SearcherError>()
    public let onSearch = Observer<String?>()
    public let onIndexResults = Observer<IndexResults>()
    public let onMergedResults = Observer<MergedResults>()
    /// Fired with a later page of the merged list (``loadMergedPage(offset:limit:)``).
    public let onMergedPage = Observer<MergedPage>()
    public let onStatus = Observer<Status>()
    /// The state of the link to the daemon, as it changes.
    public let onConnectionState = Observer<ConnectionState>()
    /// The connections made by `connect...` (kept as long as the searcher lives).
    public var connections: [any Connection] = []
    /// Whether searches are live subscriptions (see the type's description); a change
    /// applies at once to the search shown.
    public var liveMode: LiveMode = .off {
        didSet { if oldValue != liveMode { liveModeChanged() } }
    }
    /// A live search's updates come at most once per this long (writes in between together).
    public var liveIntervalMs = RequestDecoder.defaultMinIntervalMs
    /// Fired after a live update delivered a changed page.
    public let onLiveUpdate = Observer<LiveUpdate>()
    /// The live search shown: its request's seq, its answer as held, and (once answered) the
    /// handle that ends it.
    var subscription: (seq: Int, answer: LiveAnswer, handle: RequestHandle?)?

    /// How one search ended, for a caller of ``searchAndWait()``.
    public enum Outcome: Sendable, Equatable {
        /// Its `done` frame's report (the sources may still have failed: see the status).
        case finished(Status)
        /// The request failed as a whole: the daemon refused it or could not be reached.
        case failed(SearcherError)
        /// A newer search answered first, or ``cancel()`` was called: its result was not delivered.
        case superseded
    }

    /// The last request made in full, with its members encoded, and the inputs it was made from.
    var lastRequest: (inputs: RequestInputs, request: SearchRequest)?
    var sequencer = KeystrokeSequencer(session: newSessionName("fs"))
    /// The callers of ``searchAndWait()``, by the seq of their search.
    private var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
    private var nextWaiter: CheckedContinuation<Outcome, Never>?
    var running: [Int: RequestHandle] = [:]
    /// Set when the last search failed for want of a daemon: it is sent again on reconnection.
    private var retryOnReconnect = false
    private var stateWatch: Task<Void, Never>?

    /// A searcher of `indices` (each under its own name) through `transport`.
    public init(transport: any SearchTransport, indices: [SearcherId]) {
        self.transport = transport
        for id in indices { addSource(id) }
        let states = transport.states()
        stateWatch = Task { [weak self] in
            for await state in states {
                guard let self else { return }
                self.connectionChanged(state)
            }
        }
    }

    /// The same index twice needs two names: `addSource(SearcherId(index: "movies"), name: "classics")`.
    @discardableResult
    public func addSource(_ id: SearcherId, name: String? = nil, parameters: SearchParameters = SearchParameters()) -> Source {
        let source = Source(id: id, name: name ?? id.index, parameters: parameters)
        source.searcher = self
        sources.append(source)
        return source
    }

    /// The source answering under `name`.
    public func source(_ name: String) -> Source? { sources.first { $0.name == name } }

    /// Whether a search of this searcher is running.
    public var isSearching: Bool { !running.isEmpty }

    /// Sends a search, as ``search()`` does, and waits for how it ends (for scripts and
    /// benchmarks; a UI listens to the events instead).
    public func searchAndWait() async -> Outcome {
        await withCheckedContinuation { continuation in
            nextWaiter = continuation
            search()
        }
    }

    public func search() {
        let seq = sequencer.issue()
        if let w = nextWaiter {
            nextWaiter = nil
            waiters[seq] = w
        }
        retryOnReconnect = false
        // A new search ends the live one: it answers the old query or parameters.
        endSubscription()
        var request = makeRequest(seq: seq)
        let operation: Request.Operation
        if isLive {
            // Not part of the keystroke session, which would let a later search supersede it:
            // it is ended explicitly.
            (request.session, request.seq) = (nil, nil)
            operation = .subscribe(request, minIntervalMs: liveIntervalMs)
            subscription = (seq, LiveAnswer(), nil)
        } else {
            operation = .search(request)
        }
        let text = query ?? ""
        onSearch.fire(query)
        if running.isEmpty { isLoading.fire(true) }
        do {
            running[seq] = try transport.send(operation) { [weak self] event in
                self?.receive(event, seq: seq, query: text)
            }
        } catch {
            failed(error, seq: seq)
        }
    }

    /// What the transport hands over for search `seq`, on the main actor.
    private func receive(_ event: ResponseEvent, seq: Int, query: String) {
        switch event {
        case .frames(let frames): for frame in frames { handle(frame, seq: seq, query: query) }
        case .ended: ended(seq)
        case .failed(let error): failed(error, seq: seq)
        }
    }

    public func cancel() {
        subscription?.handle?.cancel()
        subscription = nil
        for request in running.values { request.cancel() }
        running = [:]
        for w in waiters.values { w.resume(returning: .superseded) }
        waiters = [:]
        sequencer.abandonAll()
        isLoading.fire(false)
    }

    /// Asks for `limit` hits of the current query's merged list from position `offset` (a
    /// merged list that scrolls on); they come by ``onMergedPage``. The per-index answers of
    /// that request are not delivered (the columns keep what they show), and a keystroke does
    /// not cancel it: the interactor ignores a page of an old query.
    public func loadMergedPage(offset: Int, limit: Int) {
        var request = makeRequest(seq: 0)
        var merge = self.merge ?? ["strategy": "score"]
        merge["offset"] = .number(Double(offset))
        merge["limit"] = .number(Double(limit))
        request.merge = merge
        request.session = nil
        request.seq = nil
        request.encodedMembers = EncodedSearchMembers()
        let text = query ?? ""
        do {
            _ = try transport.send(.search(request)) { [weak self] event in
                guard case .frames(let frames) = event else { return }
                for case .merged(_, let merged) in frames {
                    self?.onMergedPage.fire(MergedPage(query: text, offset: offset, results: merged))
                }
            }
        } catch {
            onError.fire(SearcherError(error))
        }
    }

    /// Sends one source's page request (``Source/search(page:)``) and delivers its results.
    func loadPage(of source: Source) {
        // The source's parameters as the full request would give them (the searcher's, with
        // the source's own laid over), sent as the request's own.
        let entry = target(source)
        let full = SearchRequest(query: query ?? "", targets: [entry], parameters: parameters)
        let request = SearchRequest(
            query: query ?? "", targets: [SearchTarget(index: source.id.index, name: source.name)],
            parameters: (try? full.parameters(for: entry)) ?? source.effectiveParameters, timeoutMs: timeoutMs,
            merge: ["strategy": "grouped"])
        do {
            _ = try transport.send(.search(request)) { [weak source] event in
                switch event {
                case .frames(let frames):
                    for frame in frames {
                        switch frame {
                        case .results(_, _, let r): source?.onResults.fire(r)
                        case .error(_, _, let e):
                            source?.onError.fire(SearcherError(source: source?.name, code: e.code.rawValue, message: e.message))
                        default: break
                        }
                    }
                case .ended: break
                case .failed(let error): source?.onError.fire(SearcherError(error))
                }
            }
        } catch {
            source.onError.fire(SearcherError(error))
        }
    }

    private func handle(_ frame: Frame, seq: Int, query: String) {
        if subscription?.seq == seq, takeLive(frame, seq: seq) { return }
        switch frame {
        case .results(_, let name, let results):
            guard sequencer.shouldDeliver(seq) else { return }
            source(name)?.onResults.fire(results)
            onIndexResults.fire(IndexResults(source: name, results: results, seq: seq))
        case .error(_, let name?, let e):
            guard sequencer.shouldDeliver(seq) else { return }
            let error = SearcherError(source: name, code: e.code.rawValue, message: e.message)
            source(name)?.onError.fire(error)
            onError.fire(error)
        case .error(_, nil, let e):
            guard sequencer.shouldDeliver(seq) else { return }
            let error = SearcherError(source: nil, code: e.code.rawValue, message: e.message)
            onError.fire(error)
            waiters.removeValue(forKey: seq)?.resume(returning: .failed(error))
        case .merged(_, let merged):
            guard sequencer.shouldDeliver(seq) else { return }
            onMergedResults.fire(merged)
        case .done(_, let status, let reports, let ms):
            guard status != .superseded, sequencer.shouldDeliver(seq) else { return }
            let items = reports.map { SourceStatusItem(name: $0.name, report: $0.report) }
            let report = Status(seq: seq, query: query, status: status, sources: items, ms: ms)
            onStatus.fire(report)
            waiters.removeValue(forKey: seq)?.resume(returning: .finished(report))
            if subscription?.seq == seq { liveAnswered(seq) }
        default:
            break
        }
    }

    func ended(_ seq: Int) {
        if subscription?.seq == seq { subscription = nil }
        // A search whose done was not delivered (a newer one answered first) ends superseded.
        waiters.removeValue(forKey: seq)?.resume(returning: .superseded)
        guard running.removeValue(forKey: seq) != nil || seq == sequencer.lastIssued else { return }  // cancelled before
        if !sequencer.ended(seq) { isLoading.fire(false) }
    }

    func failed(_ error: any Error, seq: Int) {
        let wasNewest = seq == sequencer.lastIssued
        if !(error is CancellationError) { waiters.removeValue(forKey: seq)?.resume(returning: .failed(SearcherError(error))) }
        ended(seq)
        guard wasNewest, !(error is CancellationError) else { return }
        if let e = error as? ClientError {
            switch e {
            case .unavailable, .disconnected: retryOnReconnect = true
            default: break
            }
        }
        onError.fire(SearcherError(error))
    }

    private func connectionChanged(_ state: ConnectionState) {
        onConnectionState.fire(state)
        if state == .connected, retryOnReconnect { search() }
    }
}
