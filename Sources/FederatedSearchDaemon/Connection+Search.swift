import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol

/// Searches: admitting one, placing it (``QueryPlacement``), running it, and its end. The
/// server core plans and runs them (``ServerCore``, as for every transport); the connection
/// decides when and where.
extension Connection {
    /// The server core as this connection's searches see it (the loop's catalog now, each
    /// page bounded by this connection's `limits.maxAnswerBytes`).
    var core: ServerCore { loop.core(answerByteLimit: limits.maxAnswerBytes) }

    /// Starts a search, or queues it while the daemon runs its maximum (`dequeued`: it waited
    /// its turn in that queue already).
    func start(key: UInt64, requestID: String?, request: SearchRequest, dequeued: Bool = false) {
        // A closed connection starts nothing (nothing would end the search).
        guard socket != nil else { return }
        let core = self.core
        let search: ServerCore.PlannedSearch
        do {
            search = try core.plan(request, id: requestID, peer: peerIdentity)
        } catch {
            _ = machine.handle(.ended(key: key, id: requestID))
            write(Frame.error(id: requestID, index: nil, error: error).line())
            return
        }
        let sources = search.sources
        let waiting = QueuedSearch(id: requestID, names: search.names, kind: .search(request))
        guard admit(key: key, waiting: waiting, dequeued: dequeued) else { return }
        if Log.enabled(.debug) {
            Log.debug(
                "request: search \(sources.map(\.name).joined(separator: ",")) query '\(request.query)'",
                [
                    ("REQUEST_ID", requestID.map(RequestID.text) ?? "-"), ("CONNECTION", String(id)),
                    ("PEER_PID", peer.map { String($0.pid) } ?? "-"),
                    ("PEER_UID", peer.map { String($0.uid) } ?? "-"),
                ])
        }
        let stats = loop.stats
        let running = loop.searches.running
        let alone = loop.requesters.record(id)
        let placement = QueryPlacement.decide(
            quick: QueryPlacement.areQuick(sources, stats: stats), waitsOnLoop: QueryPlacement.waitsOnLoop(sources, stats: stats),
            searchesOnLoop: loop.searches.onLoop, runningSearches: running, alone: alone, lineIsLast: lineIsLastOfRead)
        loop.placements.count(placement)
        if placement == .direct {
            loop.searches.running += 1
            loop.searches.onLoop += 1
            let connection = id
            let direct = LoopBound(loop)
            let done = core.runNow(search) { line, more in
                direct.onLoopThread?.deliverNow(connection: connection, key: key, bytes: line, moreSoon: more)
            }
            loop.searches.onLoop -= 1
            loop.releaseSearchSlot()
            finished(key: key, id: requestID, lastFrame: done.line())
            if loop.draining { loop.finishDrainIfIdle() }
            return
        }
        launch(key: key, search: search, core: core, placement: placement)
    }

    /// Whether another search (or facet value search) may start now under `key`, as
    /// ``SearchAdmission`` decides: started, queued (it starts when its turn comes), or
    /// refused with `too_many_requests`. A connection's own limit is kept by holding its next
    /// search unread (``searchHeld``).
    func admit(key: UInt64, waiting: QueuedSearch, dequeued: Bool) -> Bool {
        // The daemon-wide limits are the loop's (a reload may have changed them).
        let daemon = loop.config.limits
        let verdict = SearchAdmission.decide(
            SearchAdmission.Facts(
                inFlightOnConnection: searchesInFlight, maxPerConnection: limits.maxRequestsPerConnection,
                running: loop.searches.running, queued: loop.searches.queued, maxRunning: daemon.maxRunningSearches,
                maxQueued: daemon.maxQueuedSearches, outputOverBudget: loop.outputOverBudget, dequeued: dequeued))
        switch verdict {
        case .start:
            return true
        case .queue:
            queuedSearches[key] = waiting
            loop.enqueueSearch(connection: id, key: key)
            return false
        case .refuse(let busy):
            _ = machine.handle(.ended(key: key, id: waiting.id))
            write(Frame.error(id: waiting.id, index: nil, error: SearchError(.tooManyRequests, busy)).line())
            return false
        }
    }

    /// Starts a queued search whose turn came (nothing if it was cancelled meanwhile).
    func startQueued(key: UInt64) {
        guard let waiting = queuedSearches.removeValue(forKey: key) else { return }
        loop.searches.queued -= 1
        switch waiting.kind {
        case .search(let request): start(key: key, requestID: waiting.id, request: request, dequeued: true)
        case .facetValues(let request): searchFacetValues(key: key, id: waiting.id, request: request, dequeued: true)
        }
        // Refused when its turn came (its index went away in a reload, say): it ended here.
        if tasks[key] == nil { searchSlotFreed() }
    }

    /// Ends a queued search before it ran: `cancel` answers it as cancelled, a newer
    /// keystroke of its session as superseded. False if no search waits under `key`.
    func dropQueued(key: UInt64, status: DoneStatus) -> Bool {
        guard let waiting = queuedSearches.removeValue(forKey: key) else { return false }
        loop.searches.queued -= 1
        switch waiting.kind {
        case .search: write(Self.endedDone(id: waiting.id, names: waiting.names, status: status, ms: 0).line())
        case .facetValues: write(FacetValueAnswer.cancelled(id: waiting.id).line())
        }
        // A superseded one's key and id were freed by the state machine already.
        if status != .superseded { _ = machine.handle(.ended(key: key, id: waiting.id)) }
        searchSlotFreed()
        return true
    }

    /// One of this connection's searches ended or was dropped: lines that waited for the
    /// connection's limit go on.
    func searchSlotFreed() {
        pump()
        updateReading()
        closeIfAllAnswered()
        if loop.draining { loop.finishDrainIfIdle() }
    }

    /// Runs a search in a task: on the loop's executor or the global one, as placed. Created
    /// from the loop thread, which is not an actor, the task never runs on the main actor.
    private func launch(key: UInt64, search: ServerCore.PlannedSearch, core: ServerCore, placement: QueryPlacement.Kind) {
        let inbox: Inbox = loop.inbox
        let requestID = search.id
        let connection = id
        let onLoop = placement.isOnLoop
        if onLoop { loop.searches.onLoop += 1 }
        // A search that runs whole on the loop thread, one source after another, hands its
        // frames to the connection directly: the last source's frame goes to the socket while
        // the merged frame is written (the client wakes up meanwhile), and the frames of the
        // sources before it wait for it (SearchRun), so the client is woken once. Other
        // searches send through the inbox, which keeps their frames in order.
        let direct = placement.deliversOnLoop ? LoopBound(loop) : nil
        let inline = placement.inline
        let probes = HeldProbes()
        let executor: LoopExecutor? = onLoop ? loop.executor : nil
        let task = Task(executorPreference: executor) {
            let done = await core.run(search, probes: probes, inline: inline, executor: executor) { line, more in
                if let loop = direct?.onLoopThread {
                    loop.deliverNow(connection: connection, key: key, bytes: line, moreSoon: more)
                } else {
                    inbox.post(.frame(connection: connection, key: key, bytes: line))
                }
            }
            // One message for the last frame and the end, so the id is free exactly when the
            // client can see `done` (a client may reuse it at once).
            inbox.post(.requestFinished(connection: connection, key: key, id: requestID, lastFrame: done.line()))
        }
        loop.searches.running += 1
        tasks[key] = RunningSearch(
            task: task, id: requestID, names: search.names, probes: probes, started: .now, onLoop: onLoop)
    }

    /// Cancels a superseded search and sends its last frame now; what it still sends is dropped.
    func supersede(_ key: UInt64) {
        if dropQueued(key: key, status: .superseded) { return }
        guard let search = tasks.removeValue(forKey: key) else { return }
        loop.searchEnded(search)
        search.task.cancel()
        answerBytes[key] = nil
        // Its probes are given back now (its sources end later): the next search may probe.
        for index in search.probes.releaseAll() { loop.health.abandonProbe(index) }
        silenced.insert(key)
        let elapsed = (ContinuousClock.now - search.started).components
        let ms = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        write(Self.endedDone(id: search.id, names: search.names, status: .superseded, ms: ms).line())
        searchSlotFreed()
    }

    /// The `done` of a search that ends with no results, every source given `status` (with
    /// that code): `superseded` or `cancelled`.
    static func endedDone(id: String?, names: [String], status: DoneStatus, ms: Double) -> Frame {
        let report = SourceReport.Status(rawValue: status.rawValue) ?? .cancelled
        return .done(
            id: id, status: status,
            sources: names.map {
                ($0, SourceReport(status: report, ms: ms, errorCode: ErrorCode(rawValue: status.rawValue)))
            }, ms: ms)
    }

    /// A frame from a search's task (dropped if the search was superseded or refused).
    func deliver(key: UInt64, bytes: OutgoingLine) {
        guard !silenced.contains(key) else { return }
        guard mayQueueAnswer(of: key) else {
            refuse(key: key, id: tasks[key]?.id ?? machine.id(of: key), backlog: true)
            return
        }
        guard countAnswerBytes(bytes.count, of: key) else {
            loop.largeAnswerDropped(bytes: (answerBytes[key] ?? 0) + bytes.count)
            refuse(key: key, id: tasks[key]?.id ?? machine.id(of: key), backlog: false)
            return
        }
        write(bytes, endsAnswer: false)
    }

    /// A search's task ended.
    func finished(key: UInt64, id: String?, lastFrame: [UInt8]) {
        if silenced.remove(key) != nil { return }
        let backlogged = !mayQueueAnswer(of: key)
        guard !backlogged, countAnswerBytes(lastFrame.count, of: key) else {
            refuse(key: key, id: id, backlog: backlogged)
            silenced.remove(key)
            return
        }
        answerBytes[key] = nil
        write(lastFrame)
        answerEnded(key: key)
        if let search = tasks.removeValue(forKey: key) { loop.searchEnded(search) }
        _ = machine.handle(.ended(key: key, id: id))
        searchSlotFreed()
    }

    /// Adds `count` bytes to the answer of the search under `key`; false once the answer
    /// would pass `limits.maxAnswerBytes`.
    private func countAnswerBytes(_ count: Int, of key: UInt64) -> Bool {
        let total = (answerBytes[key] ?? 0) + count
        guard total <= limits.maxAnswerBytes else { return false }
        answerBytes[key] = total
        return true
    }

    /// Ends a search whose answer may not be queued: its client has not read its earlier
    /// answers (`backlog`: `output_backlog`), or the answer passed `limits.maxAnswerBytes`
    /// (`answer_too_large`). Its task is cancelled, what it still sends is dropped, and the
    /// connection stays open (frames of it already queued stay valid).
    private func refuse(key: UInt64, id: String?, backlog: Bool) {
        if let search = tasks.removeValue(forKey: key) {
            loop.searchEnded(search)
            search.task.cancel()
            for index in search.probes.releaseAll() { loop.health.abandonProbe(index) }
        }
        answerBytes[key] = nil
        silenced.insert(key)
        let error =
            backlog
            ? SearchError(
                .outputBacklog,
                "more than \(2 * limits.maxPendingOutputBytes) bytes of earlier answers are unread; this answer is refused: read them first"
            )
            : SearchError(
                .answerTooLarge,
                "the answer is larger than limits.maxAnswerBytes (\(limits.maxAnswerBytes) bytes); ask for fewer hits (hitsPerPage) or attributes (attributesToRetrieve)"
            )
        write(Frame.error(id: id, index: nil, error: error).line())
        _ = machine.handle(.ended(key: key, id: id))
        searchSlotFreed()
    }
}

/// A search (or facet value search) waiting for one of the daemon's slots.
struct QueuedSearch {
    enum Kind {
        case search(SearchRequest)
        case facetValues(FacetValuesRequest)
    }
    let id: String?
    /// The sources it would ask (for its `done` frame if it ends before it runs).
    let names: [String]
    let kind: Kind
}

/// A search running for a connection: its task and what its `done` frame needs.
struct RunningSearch {
    let task: Task<Void, Never>
    let id: String?
    let names: [String]
    /// The breaker probes it holds (given back if it is superseded).
    let probes: HeldProbes
    let started: ContinuousClock.Instant
    /// Whether its task runs on the loop's executor.
    let onLoop: Bool
}
