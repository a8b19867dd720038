#if canImport(Glibc)
import Glibc
#endif
import CGlibcExtras
import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchFederation
import FederatedSearchCore
import FederatedSearchProtocol

/// One client connection, owned by the loop thread: its socket, framer, protocol state
/// and running tasks. Tasks never see this object; they address frames by `id`.
final class Connection {
    let id: UInt64
    /// The socket and libevent's buffers for it; nil until attached, and once closed.
    private(set) var socket: BufferedSocket?
    private var framer: LineFramer
    var machine = ConnectionStateMachine()
    /// Searches running for this connection, by request key.
    var tasks: [UInt64: RunningSearch] = [:]
    /// Searches waiting for one of the daemon's `maxRunningSearches` slots, by request key
    /// (the loop's queue keeps their order).
    var queuedSearches: [UInt64: QueuedSearch] = [:]
    /// Answers still to come from work off the loop (write batches, decoding a big line).
    var awaitedReplies = 0
    /// Lines read and not acted on yet, the next one last: the rest of a read, or lines that
    /// must wait (see ``linesMustWait``).
    var waitingLines: [LineFramer.Event] = []
    var decodingOffLoop = false
    /// Answers of this loop turn not yet sent (see ``write(_:endsAnswer:)``).
    private(set) var outbox: [UInt8] = []
    /// Lines sent in pieces (large answers, and whatever follows them) not yet copied to
    /// libevent (see ``copyStreamed()``).
    private var streamed = PendingPieces()
    /// Their bytes.
    var streamedBytes: Int { streamed.count }
    /// Bytes of each running search's answer queued so far (see `limits.maxAnswerBytes`).
    var answerBytes: [UInt64: Int] = [:]
    /// Superseded searches whose tasks have not ended yet: their frames are dropped.
    var silenced: Set<UInt64> = []
    /// Reading, throttling and closing (see ``ConnectionLifecycle``).
    private(set) var lifecycle: ConnectionLifecycle
    /// Asked to close: flushing, or lingering.
    var closeWhenFlushed: Bool { lifecycle.isClosing }
    /// Lingering: input is read and thrown away until the client closes.
    var discarding: Bool { lifecycle.phase == .lingering }
    /// Reading is paused because the client is not reading its answers.
    var throttled: Bool { lifecycle.throttled }
    unowned let loop: EventLoop

    /// Who is on the other end (SO_PEERCRED at accept).
    let peer: PeerCredentials?
    /// The peer's user and groups, resolved on first use.
    private lazy var identity: PeerIdentity? = peer.map(PeerIdentity.init)
    var peerIdentity: PeerIdentity? { identity }

    let limits: DaemonConfig.Limits

    init(id: UInt64, loop: EventLoop, limits: DaemonConfig.Limits, maxLineBytes: Int, peer: PeerCredentials?) {
        self.id = id
        self.limits = limits
        self.peer = peer
        self.loop = loop
        self.framer = LineFramer(maxLineBytes: maxLineBytes)
        lifecycle = ConnectionLifecycle(maxPendingOutputBytes: limits.maxPendingOutputBytes)
    }

    /// Whether the connection is on its way out (flushing or discarding before close); such
    /// connections do not count against `limits.maxConnections`.
    var isClosing: Bool { lifecycle.isClosing }

    /// What the lifecycle needs to know now.
    private var facts: ConnectionLifecycle.Facts {
        .init(nothingToCome: nothingToCome, allWritten: allWritten, linesMustWait: linesMustWait, searchHeld: searchHeld)
    }

    /// Tells the lifecycle what happened and carries out its actions, in order.
    func handle(_ event: ConnectionLifecycle.Event) {
        guard socket != nil else { return }
        for action in lifecycle.handle(event, facts) { carryOut(action) }
    }

    private func carryOut(_ action: ConnectionLifecycle.Action) {
        guard let socket else { return }
        switch action {
        case .setReading(let on):
            socket.setReading(on)
        case .close:
            close()
        case .watchForEmptyOutput:
            socket.setWriteLowWatermark(0)
        case .startLingering:
            socket.shutdownWriting()
            socket.setTimeouts(readMs: 1000, writeMs: 0)
            socket.setReading(true)
            socket.discardInput()
        case .pump:
            pump()
            // pump() updates reading itself, but not when it runs already (a search answered
            // inside it flushed the outbox): then it is done here.
            updateReading()
            handle(.answered)
        }
    }

    /// Set while the line being handled is the last one read and no byte follows it.
    private(set) var lineIsLastOfRead = false

    /// Reads what arrived and acts on every complete line (see ``pump()``).
    func readAvailable() {
        guard socket != nil else { return }
        if discarding {
            socket?.discardInput()
            return
        }
        pump()
    }

    /// Set while ``pump()`` runs: a line it acts on may end a search at once (on the loop
    /// thread), which frees a slot and pumps again; that inner call returns, and the outer
    /// one goes on, so lines are acted on in the order they came.
    private var pumping = false

    /// Acts on the lines read and waiting, then on what is in libevent's input buffer, in
    /// order, until lines must wait (see ``linesMustWait``) or the next line is a search that
    /// must wait for one of this connection's slots (see ``searchHeld``); the rest stays in
    /// libevent's buffer, and reading is paused, so a client that sends faster than its
    /// searches end is pushed back through its socket.
    func pump() {
        guard !pumping else { return }
        pumping = true
        defer {
            pumping = false
            lineIsLastOfRead = false
            // Lines that must wait leave the rest in the socket, not in libevent's buffer.
            updateReading()
        }
        searchHeld = false
        while let socket, !linesMustWait {
            if let event = waitingLines.last {
                // A connection on its way out (a drain, an over-long line) starts nothing new.
                if isClosing {
                    waitingLines.removeAll()
                    break
                }
                if searchesInFlight >= limits.maxRequestsPerConnection, Self.mayStartSearch(event) {
                    searchHeld = true
                    break
                }
                waitingLines.removeLast()
                lineIsLastOfRead = waitingLines.isEmpty && socket.inputLength == 0 && framer.pendingCount == 0
                act(on: event)
                continue
            }
            // The framer copies libevent's first chunk in place (no copy into a buffer of our
            // own); the chunk is drained before any line is handled (handling may close the
            // connection and free the buffer).
            guard let events = socket.takeInputChunk(maxBytes: 16 * 1024, { framer.feed($0) }) else { break }
            waitingLines = events.reversed()
            guard holdPartialLine(startedNow: !events.isEmpty) else { break }
        }
    }

    /// Bytes of an unfinished line held in the framer, as counted in the loop's total.
    private var heldInputBytes = 0
    /// When the first byte of the unfinished line arrived (nil: none is).
    private(set) var partialLineSince: ContinuousClock.Instant?

    /// Counts the framer's unfinished line in the daemon's total after a read (`startedNow`:
    /// the read completed a line, so what is left began in it). Past
    /// `limits.maxTotalPendingInputBytes`, the line is dropped and the connection closed with
    /// `input_backlog`; whether it is still read.
    private func holdPartialLine(startedNow: Bool) -> Bool {
        let held = framer.pendingCount
        loop.pendingInputChanged(by: held - heldInputBytes)
        heldInputBytes = held
        partialLineSince = held == 0 ? nil : (startedNow ? .now : partialLineSince ?? .now)
        guard held > 0, loop.memory.pendingInputBytes > limits.maxTotalPendingInputBytes else { return true }
        dropPartialLine()
        Log.warning(
            "closing connection \(id): clients hold more than \(limits.maxTotalPendingInputBytes) bytes of unfinished lines (limits.maxTotalPendingInputBytes)"
        )
        write(
            Frame.error(
                id: nil, index: nil,
                error: SearchError(
                    .inputBacklog,
                    """
                    the daemon holds limits.maxTotalPendingInputBytes (\(limits.maxTotalPendingInputBytes)) of unfinished lines from its \
                    clients: this connection's line of \(held) bytes so far was dropped; connect again and send it again
                    """)
            ).line())
        closeAfterFlush()
        return false
    }

    /// Drops the unfinished line (closing): nothing more is framed.
    private func dropPartialLine() {
        framer.abandon()
        loop.pendingInputChanged(by: -heldInputBytes)
        heldInputBytes = 0
        partialLineSince = nil
    }

    /// Closes the connection if its unfinished line began more than
    /// `limits.requestReadTimeoutMs` before `now` (a client trickling a line byte by byte
    /// keeps the idle timer from firing); the loop calls it every second.
    func closeIfLineTooSlow(now: ContinuousClock.Instant) {
        let ms = limits.requestReadTimeoutMs
        guard ms > 0, let since = partialLineSince, !isClosing, let socket else { return }
        // While the daemon holds the rest of the input back (the connection's searches or
        // answers must go first), the client is not the one that is slow: its clock restarts.
        if linesMustWait || searchHeld || !waitingLines.isEmpty || socket.inputLength > 0 {
            partialLineSince = now
            return
        }
        guard now - since > .milliseconds(ms) else { return }
        let held = heldInputBytes
        dropPartialLine()
        Log.debug("closing connection \(id): a line did not arrive whole within \(ms) ms")
        write(
            Frame.error(
                id: nil, index: nil,
                error: SearchError(
                    .requestTimeout,
                    "a line did not arrive whole within limits.requestReadTimeoutMs (\(ms) ms): \(held) bytes of it came")
            ).line())
        closeAfterFlush()
    }

    /// Set while the next waiting line is a search held back by `limits.maxRequestsPerConnection`:
    /// reading pauses behind it. Lines of other kinds (a `cancel`, a `ping`) are acted on while
    /// the connection's searches run, as long as no search waits before them.
    private(set) var searchHeld = false

    /// Whether a line would start a search or facet value search (decoded to see; a line too
    /// long to decode on the loop is taken to be one).
    private static func mayStartSearch(_ event: LineFramer.Event) -> Bool {
        guard case .line(let bytes) = event else { return false }
        if bytes.count >= offLoopDecodeBytes { return true }
        switch RequestDecoder.decode(bytes) {
        case .success(let r):
            switch r.operation {
            case .search, .searchForFacetValues, .subscribe: return true
            default: return false
            }
        case .failure: return false
        }
    }

    func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .send(let frame):
            write(frame.line())
        case .reload(let id):
            guard peer?.isAdministrator == true else {
                write(
                    Frame.error(
                        id: id, index: nil,
                        error: SearchError(
                            .forbidden, "op: reload is allowed to root and the daemon's own user only")
                    ).line())
                return
            }
            loop.startReload(requester: ReloadRequester(connection: self.id, id: id))
        case .searchFacetValues(let key, let id, let request):
            searchFacetValues(key: key, id: id, request: request)
        case .indexOperation(let id, let index, let operation):
            perform(operation, on: index, id: id)
        case .describeIndices(let id):
            write(Frame.info(id: id, type: "indices", payload: loop.catalog.indicesPayload(visibleTo: identity)).line())
        case .reportStats(let id):
            // Per-index figures only for the indices this peer may know of.
            let visible = Set(loop.catalog.entries.filter { $0.access.maySee(identity) }.map(\.id.index))
            func onlyVisible(_ o: JSONObject?) -> JSONValue {
                var kept = JSONObject()
                for e in o ?? [:] where visible.contains(e.key) { kept.appendUnchecked(e.key, e.value) }
                return .object(kept)
            }
            var payload = loop.stats.json(connections: loop.connectionCount)
            payload["latency"] = onlyVisible(payload["latency"]?.objectValue)
            payload["circuitBreakers"] = onlyVisible(loop.health.json(now: .now))
            payload["polling"] = .object(loop.pollingJSON)
            payload["placement"] = .object(loop.placements.json)
            payload["subscriptions"] = .object(loop.live.json)
            payload["queuedSearches"] = .number(Double(loop.searches.queued))
            payload["pendingOutputBytes"] = .number(Double(loop.memory.pendingOutputBytes))
            payload["streamedOutputBytes"] = .number(Double(loop.memory.streamedOutputBytes))
            payload["pendingInputBytes"] = .number(Double(loop.memory.pendingInputBytes))
            if let http = loop.httpListener {
                payload["http"] = [
                    "listen": .string(http.address.description), "connections": .number(Double(http.connectionCount)),
                    "requests": .number(Double(http.exchangeCount)), "served": .number(Double(http.servedCount)),
                ]
            }
            var writes = JSONObject()
            for e in loop.catalog.entries where e.access.maySee(identity) {
                if let durable = e.searchable as? DurableIndex { writes[e.id.index] = durable.statsJSON() }
            }
            if !writes.isEmpty { payload["writes"] = .object(writes) }
            var backends = JSONObject()
            for e in loop.catalog.entries where e.access.maySee(identity) {
                if let r = e.searchable as? any ReportsBackendStats { backends[e.id.index] = .object(r.backendStats) }
            }
            if !backends.isEmpty { payload["backends"] = .object(backends) }
            write(Frame.info(id: id, type: "stats", payload: payload).line())
        case .cancel(let key):
            if !dropQueued(key: key, status: .cancelled) { tasks[key]?.task.cancel() }
        case .supersede(let key):
            supersede(key)
        case .refuseIndexRequest(let e):
            write(Frame.error(id: e.id, index: nil, error: loop.catalog.refusal(of: e, peer: identity)).line())
        case .refuseStale(let id, let request):
            // Without `indices`, the indices this peer may search (what the search would ask).
            let names =
                request.targets?.map(\.name)
                ?? loop.catalog.entries.filter { $0.access.maySearch(identity) }.map(\.id.index)
            write(Self.endedDone(id: id, names: names, status: .superseded, ms: 0).line())
        case .closeAfterFlush:
            closeAfterFlush()
        case .startSearch(let key, let requestID, let request):
            start(key: key, requestID: requestID, request: request)
        case .subscribe(let id, let request, let interval):
            if let refusal = loop.live.subscribe(self, id: id, request: request, minIntervalMs: interval) {
                write(Frame.error(id: id, index: nil, error: refusal).line())
            }
        case .unsubscribe(let id, let target):
            loop.live.unsubscribe(self, id: id, target: target)
        case .watch(let id, let indices):
            if let refusal = loop.live.watch(self, id: id, indices: indices) {
                write(Frame.error(id: id, index: nil, error: refusal).line())
            }
        }
    }

    /// Takes its socket (made with this connection as its handler): its output counts in the
    /// daemon's total (``EventLoop/pendingOutputBytes``), with the idle and write timeouts and
    /// the output watermark set (the write callback fires once the output drains to half the
    /// limit, which resumes reading a throttled client).
    func attach(_ socket: BufferedSocket) {
        self.socket = socket
        socket.countOutput()
        socket.setTimeouts(readMs: limits.idleTimeoutMs, writeMs: limits.writeTimeoutMs)
        socket.setWriteLowWatermark(limits.maxPendingOutputBytes / 2)
    }

    /// The write timer fired: the client has read nothing of its answers for
    /// `limits.writeTimeoutMs`. It is closed (nothing more can reach it), and its searches
    /// cancelled.
    func writeTimedOut() {
        guard socket != nil else { return }
        Log.warning("closing connection \(id): its answers waited \(limits.writeTimeoutMs) ms unread (limits.writeTimeoutMs)")
        close()
        malloc_trim(0)
    }

    /// The idle timer fired. A connection waiting for its searches is not idle: keep it. One
    /// whose last answer is still in the outbox (the timer fired in the loop turn the search
    /// ended, before the turn's flush) is closed once that answer is written, not dropped.
    func readTimedOut() {
        guard socket != nil else { return }
        if discarding || (nothingToCome && allWritten) {
            Log.debug("closing idle connection \(id)")
        } else if nothingToCome, !isClosing {
            Log.debug("closing idle connection \(id) once its answers are written")
        }
        handle(.readTimedOut)
    }

    /// Write batches of one connection queued at the writer before its reading pauses: the
    /// client then waits in `send`, and the daemon never holds more of its batches.
    static let maxQueuedWrites = 64

    /// Whether new lines wait instead of being acted on: a big line is being decoded (order),
    /// `maxQueuedWrites` write batches are unanswered (an exact limit, not one read late), a
    /// large `getDocuments` answer is being encoded, or the client's answers pile up unread
    /// (`throttled`: lines already read start nothing until it reads). Searches past
    /// `limits.maxRequestsPerConnection` wait too (``searchHeld``).
    var linesMustWait: Bool {
        decodingOffLoop || throttled || awaitedReplies >= Self.maxQueuedWrites || repliesEncodingOffLoop > 0
    }

    /// Large `getDocuments` answers being encoded off the loop (counted in `awaitedReplies`
    /// too). While one is, the connection's next lines wait: its size is known only once it
    /// is queued, and a client must not start many before the first throttles it.
    var repliesEncodingOffLoop = 0

    /// Searches (and facet value searches) of this connection running or waiting for a slot.
    var searchesInFlight: Int { tasks.count + queuedSearches.count + firstAnswersPending }
    /// Subscriptions waiting for their first answer (they count as searches in flight).
    var firstAnswersPending = 0

    /// Reads unless the client must wait: its answers pile up unread (`throttled`), its lines
    /// must wait, or the connection is closing (a lingering one reads only to discard).

    func updateReading() { handle(.readingMayChange) }

    /// No answer is still to come from work off the loop.
    var isQuiet: Bool { awaitedReplies == 0 && !decodingOffLoop && waitingLines.isEmpty && queuedSearches.isEmpty }

    /// No answer is still to come at all: none from off the loop, and no search running (a
    /// search on the loop sends a source's frame before its last ones).
    /// Nothing runs and nothing will be sent unasked (a connection with subscriptions is never
    /// idle: updates come).
    var nothingToCome: Bool { isQuiet && tasks.isEmpty && (isClosing || loop.live.count(of: id) == 0) }

    /// Bytes queued for the client and not yet taken by the socket.
    var unsentBytes: Int { outbox.count + streamedBytes + (socket?.outputLength ?? 0) }

    /// Everything queued has gone to the socket: the outbox, the streamed pieces and
    /// libevent's buffer are empty.
    var allWritten: Bool {
        guard let socket else { return outbox.isEmpty }
        return outbox.isEmpty && streamedBytes == 0 && socket.outputLength == 0
    }

    /// After the client's EOF, closes once every answer is written.
    func closeIfAllAnswered() { handle(.answered) }

    /// The client sent EOF. A client that shut down only its sending side (`echo ... | socat`)
    /// still gets the answers to what it sent; one that closed the socket is gone, so its
    /// searches are cancelled at once. A Unix socket reports POLLHUP only in the second case.
    func peerEndedInput() {
        guard let socket else { return }
        handle(.inputEnded(hungUp: !discarding && socket.peerHungUp))
    }

    /// Bytes ever queued for the client, and that count where its last complete answer ended
    /// (see ``write(_:endsAnswer:)``).
    private var queuedBytes = 0
    private var answeredThrough = 0

    /// Bytes queued and not yet taken by the socket: the outbox, the streamed pieces and
    /// libevent's buffer.
    private var pendingBytes: Int {
        guard let socket else { return 0 }
        return outbox.count + streamedBytes + socket.outputLength
    }

    /// Of the answers queued in full, the bytes the client has not read yet.
    private var unreadAnswerBytes: Int { answeredThrough - (queuedBytes - pendingBytes) }

    /// Where each search's complete answer ended in the byte count, while the client has not
    /// read all of it (oldest first).
    private var unreadSearchEnds: [(key: UInt64, end: Int)] = []

    /// Whether more of the answer of the search under `key` may be queued. Yes while the
    /// client has read all but twice `maxPendingOutputBytes` of the complete answers; past
    /// that, only for the earliest request still outstanding (none sent before it is running
    /// or unread): its answer arrives whole, later ones are refused (`output_backlog`).
    func mayQueueAnswer(of key: UInt64) -> Bool {
        guard socket != nil else { return false }
        let readThrough = queuedBytes - pendingBytes
        unreadSearchEnds.removeAll { $0.end <= readThrough }
        guard unreadAnswerBytes > 2 * limits.maxPendingOutputBytes else { return true }
        return !machine.runningRequestKeys.contains { $0 < key } && !unreadSearchEnds.contains { $0.key < key }
    }

    /// Records the end of a search's answer (just queued).
    func answerEnded(key: UInt64) { unreadSearchEnds.append((key, queuedBytes)) }

    /// Queues bytes for the client. A client that lets its answers pile up first stops being
    /// read (so it cannot queue more work); then its later searches' answers are refused (see
    /// ``mayQueueAnswer(of:)``), while replies to its other requests, already read, are queued
    /// behind what it has not read (the connection is never cut with answers in it; the write
    /// timeout closes a client that never reads).
    /// The answer being written does not count against it, so one answer larger than the limit
    /// (a thousand hits) reaches a client that reads; its frames are queued in one loop turn,
    /// before the client can read any of them. `endsAnswer`: these bytes complete an answer
    /// (a search's last frame, or a one-frame reply); a search's other frames pass false.
    ///
    /// While libevent has nothing queued for the socket, answers gather in `outbox` and are
    /// sent straight to the socket at the end of the loop turn (as Redis does before it
    /// sleeps): one `send` for all of a turn's frames, and no write event to add and remove
    /// (two `epoll_ctl` calls and a loop turn per answer). Only what the socket does not take
    /// goes to the bufferevent, which then writes it when the socket is writable.
    ///
    /// A line in pieces (a large answer: see ``OutgoingLine``), and anything queued after it
    /// until it is sent, waits in `streamed` and is copied to libevent as the client reads
    /// (``copyStreamed()``): the daemon holds the answer's hits, not a copy of its text.
    func write(_ line: OutgoingLine, endsAnswer: Bool = true) {
        guard let socket else { return }
        if line.isWhole && streamedBytes == 0 {
            let bytes = line.bytes
            if socket.outputLength == 0 && !discarding {
                if outbox.isEmpty { loop.queueFlush(id) }
                outbox += bytes
                loop.outputChanged(by: bytes.count)
            } else {
                socket.queue(bytes)
            }
        } else {
            streamed.append(line)
            loop.streamedOutputChanged(by: line.count)
            copyStreamed()
        }
        queuedBytes += line.count
        if endsAnswer { answeredThrough = queuedBytes }
        handle(.queued(pendingBytes: pendingBytes))
    }

    /// Queues one array of bytes (see ``write(_:endsAnswer:)``).
    func write(_ bytes: [UInt8], endsAnswer: Bool = true) {
        write(OutgoingLine(bytes), endsAnswer: endsAnswer)
    }

    /// Copies streamed pieces to libevent while it holds less than
    /// `limits.maxPendingOutputBytes` (the outbox, queued before them, goes first). Called as
    /// they are queued and each time libevent's buffer drains to its low watermark.
    private func copyStreamed() {
        guard let socket, outbox.isEmpty, !streamed.isEmpty else { return }
        let room = limits.maxPendingOutputBytes
        let copied = streamed.take(while: { room - socket.outputLength }) { socket.queue($0) }
        // libevent's output callback counts them now.
        loop.streamedOutputChanged(by: -copied)
    }

    /// Sends the outbox: what the socket takes now, the rest through the bufferevent.
    func flushOutbox() {
        guard let socket, !outbox.isEmpty else { return }
        // What the socket does not take now (full, or failed), libevent writes when it can,
        // or reports the error to `onEvent`, which closes the connection.
        let sent = socket.sendNow(outbox)
        socket.queue(outbox, from: sent)
        // What went to the bufferevent is counted by its output callback.
        loop.outputChanged(by: -outbox.count)
        outbox.removeAll(keepingCapacity: outbox.count <= 64 * 1024)
        copyStreamed()
        if socket.outputLength == 0 { wrote() }
    }

    /// Closes once everything queued has been written (see ``ConnectionLifecycle``); its
    /// subscriptions end now (nothing more is read from it, so none could be ended).
    func closeAfterFlush() {
        loop.live.connectionClosed(id)
        handle(.closeAfterFlush)
    }

    /// The output buffer drained (to the low watermark): more streamed pieces go to it. The
    /// output counts as drained once none was left to copy.
    func wrote() {
        // Pieces copied now are sent before the output counts as drained: libevent calls
        // again once its buffer is back at the watermark (at empty while closing).
        let before = streamedBytes
        copyStreamed()
        guard streamedBytes == 0, before == 0 else { return }
        handle(.outputDrained)
    }

    /// Frees the socket and cancels every running search of this connection.
    func close() {
        guard let socket else { return }
        self.socket = nil
        lifecycle.closed()
        for search in tasks.values {
            search.task.cancel()
            loop.searchEnded(search)
        }
        tasks.removeAll()
        loop.searches.queued -= queuedSearches.count
        queuedSearches.removeAll()
        loop.outputChanged(by: -(outbox.count + socket.outputLength))
        loop.streamedOutputChanged(by: -streamedBytes)
        outbox = []
        streamed.removeAll()
        dropPartialLine()
        socket.free()
        loop.live.connectionClosed(id)
        loop.removeConnection(id)
    }
}

/// The socket's events, on the loop thread.
extension Connection: BufferedSocketHandler {
    func socketReadable() {
        loop.turns &+= 1
        readAvailable()
    }

    func socketWritable() { wrote() }

    func socketEvent(_ event: BufferedSocket.Event) {
        switch event {
        case .failed: close()
        case .readTimedOut: readTimedOut()
        case .writeTimedOut: writeTimedOut()
        case .endOfInput:
            readAvailable()
            peerEndedInput()
        }
    }

    func socketOutputChanged(by delta: Int) { loop.outputChanged(by: delta) }
}
