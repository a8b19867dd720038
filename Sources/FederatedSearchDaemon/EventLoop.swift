#if canImport(Glibc)
import Glibc
#endif
import CGlibcExtras
import Dispatch
import CLibevent
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchProtocol

/// The libevent loop: the listeners, every connection, the inbox, signals and timers.
/// Everything here runs on the one loop thread; other threads reach it only through ``Inbox``.
final class EventLoop {
    let base: OpaquePointer
    private(set) var inbox: Inbox!
    /// Runs fast in-memory queries' tasks on this thread.
    private(set) var executor: LoopExecutor!
    private var wakeEvent: OpaquePointer?
    /// Activated when a connection has answers to send; runs at the end of the loop turn.
    private var flushEvent: OpaquePointer?
    /// Connections with answers waiting in their outbox (see ``Connection/flushOutbox()``).
    private var connectionsToFlush: [UInt64] = []
    var signalEvents: [OpaquePointer] = []
    var timerEvents: [OpaquePointer] = []
    var listeners: [OpaquePointer] = []
    /// The HTTP listener, if the config has one.
    var httpListener: HTTPListener?
    private(set) var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 1
    /// The searchables new requests use; replaced whole by a reload. Running requests keep
    /// the sources they resolved at their start.
    var catalog: Catalog
    /// The config in force (the last one that loaded).
    var config: DaemonConfig
    let loader: CatalogLoader
    let stats: DaemonStats
    /// Circuit breakers per index.
    let health: SourceHealth
    /// Set once SIGTERM or SIGINT arrives: no new connections, exit when running work is done.
    var draining = false
    /// Whether the listening sockets are systemd's (socket activation).
    var servesSystemdSockets = false
    /// A reload in progress, and who asked for it.
    var reload: ReloadState?
    /// Names of indices a `createIndex` is building or a `deleteIndex` is removing (refused
    /// to another `createIndex` until done).
    var indexNamesInTransition: Set<String> = []

    init(config: DaemonConfig, catalog: Catalog, loader: CatalogLoader, stats: DaemonStats) throws {
        // Must precede event_base_new: makes event_active safe from other threads.
        guard evthread_use_pthreads() == 0, let base = event_base_new() else {
            throw SystemCallError(call: "event_base_new", errno: errno)
        }
        self.base = base
        self.catalog = catalog
        self.config = config
        self.loader = loader
        self.stats = stats
        self.health = SourceHealth(settings: config.circuitBreaker)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let wake = event_new(base, -1, 0, onWake, context) else {
            throw SystemCallError(call: "event_new(wake)", errno: errno)
        }
        wakeEvent = wake
        guard let flush = event_new(base, -1, 0, onFlush, context) else {
            throw SystemCallError(call: "event_new(flush)", errno: errno)
        }
        flushEvent = flush
        inbox = Inbox(wakeEvent: wake)
        executor = LoopExecutor(inbox: inbox)
        try installSignals()
    }

    deinit {
        httpListener = nil
        for l in listeners {
            AcceptBackoff.forget(l)
            evconnlistener_free(l)
        }
        for ev in signalEvents + timerEvents { event_free(ev) }
        if let wakeEvent { event_free(wakeEvent) }
        if let flushEvent { event_free(flushEvent) }
        if let settleTimer { event_free(settleTimer) }
        event_base_free(base)
    }

    var connectionCount: Int { connections.count }

    /// Searches running on every connection (kept by the connections as they start and end).
    var runningSearchCount = 0
    /// Of those, the ones whose task runs on the loop's own executor.
    var searchesOnLoop = 0
    /// The connections of the latest searches (whether one client is alone).
    var requesters = RecentRequesters()
    /// Where searches ran, for `stats.placement` (loop thread only).
    var placements = PlacementCounts()

    /// A connection's search ended or was dropped.
    func searchEnded(_ search: RunningSearch) {
        if search.onLoop { searchesOnLoop -= 1 }
        releaseSearchSlot()
        let dropped = stats.takeRefusedPageBytes()
        if dropped > 0 { largeAnswerDropped(bytes: dropped) }
    }

    /// Searches waiting for a slot (of `limits.maxRunningSearches`), oldest first, as
    /// (connection, request key); entries of connections gone or searches cancelled since are
    /// skipped. `queuedSearchCount` is their exact number.
    private var searchQueue = FIFO<(connection: UInt64, key: UInt64)>()
    /// Searches waiting in ``searchQueue`` (kept by the connections as they queue and drop them).
    var queuedSearchCount = 0

    /// Queues a connection's search until a slot is free.
    func enqueueSearch(connection: UInt64, key: UInt64) {
        // Entries of searches cancelled or superseded while waiting stay until popped: drop
        // them when they outnumber the live ones, so the queue stays bounded by its limit.
        if searchQueue.count >= 2 * queuedSearchCount + 1024 {
            searchQueue = searchQueue.filter { connections[$0.connection]?.queuedSearches[$0.key] != nil }
        }
        searchQueue.append((connection, key))
        queuedSearchCount += 1
    }

    /// One running search fewer; the oldest waiting ones start at the end of this loop turn
    /// (not in the middle of the callback that ended this one).
    func releaseSearchSlot() {
        runningSearchCount -= 1
        if queuedSearchCount > 0 { activateFlush() }
    }

    /// Bytes queued for every client and not yet taken by their sockets (outboxes and
    /// libevent's output buffers).
    private(set) var pendingOutputBytes = 0
    /// The most `pendingOutputBytes` reached since the heap was last trimmed.
    private var outputPeak = 0

    /// Whether clients hold more unread output than `limits.maxTotalPendingOutputBytes`: no
    /// search starts until they read (see ``Connection/admit(key:waiting:dequeued:)``).
    var outputOverBudget: Bool { pendingOutputBytes > config.limits.maxTotalPendingOutputBytes }

    /// Output was queued (positive) or written or dropped (negative) for some client.
    func outputChanged(by delta: Int) {
        let wasOver = outputOverBudget
        pendingOutputBytes += delta
        outputPeak = max(outputPeak, pendingOutputBytes)
        if wasOver, !outputOverBudget, queuedSearchCount > 0 { activateFlush() }
        // Once the clients have read a large burst, give the freed buffers back to the system
        // (glibc keeps freed heap otherwise): at the end of the turn, once per burst.
        if trimDue { activateFlush() }
    }

    /// Bytes of unfinished lines held for every socket client (see `limits.maxTotalPendingInputBytes`).
    private(set) var pendingInputBytes = 0
    /// The most `pendingInputBytes` reached since the heap was last trimmed for it.
    private var inputPeak = 0

    /// A connection's unfinished line grew (positive), or was completed or dropped (negative).
    func pendingInputChanged(by delta: Int) {
        guard delta != 0 else { return }
        pendingInputBytes += delta
        inputPeak = max(inputPeak, pendingInputBytes)
        // Clients that sent large lines and left: their buffers are given back to the system
        // (glibc keeps freed heap otherwise), off the loop, once per burst.
        if pendingInputBytes == 0, inputPeak >= Self.trimAfterPeakBytes {
            inputPeak = 0
            DispatchQueue.global(qos: .utility).async { _ = malloc_trim(0) }
        }
    }

    /// Every second: requests that have not arrived whole in time close their connections.
    func closeSlowRequests() {
        let now = ContinuousClock.now
        for c in connections.values { c.closeIfLineTooSlow(now: now) }
        httpListener?.closeSlowRequests(now: now)
    }

    /// The server core over the current catalog, for a transport's request (each source's
    /// page bounded by `answerByteLimit`): the socket's connections and the HTTP listener.
    func core(answerByteLimit: Int) -> ServerCore {
        ServerCore(
            catalog: catalog, stats: stats, health: health, answerByteLimit: answerByteLimit,
            administration: LoopAdministration(inbox: inbox))
    }

    /// Of ``pendingOutputBytes``, those of lines sent in pieces not yet copied to libevent:
    /// held as the answers' own hits, not as copies (see ``Connection/write(_:endsAnswer:)``).
    private(set) var streamedOutputBytes = 0

    /// Streamed output was queued (positive), or copied to libevent or dropped (negative).
    func streamedOutputChanged(by delta: Int) {
        streamedOutputBytes += delta
        outputChanged(by: delta)
    }

    /// A burst of output at least this large is followed by `malloc_trim` once it is read.
    static let trimAfterPeakBytes = 32 << 20

    /// After a burst's trim, searches whose clients left may still end (cancelled, their
    /// pages built meanwhile) and free more: the heap is trimmed again a second later, and
    /// each second after while searches still run (a few times at most).
    private var settleTimer: OpaquePointer?
    private var settleTrimsLeft = 0

    fileprivate func settleTrim() {
        // Off the loop: on a large heap a trim takes a while, and glibc's is thread-safe.
        if pendingOutputBytes == 0 { DispatchQueue.global(qos: .utility).async { _ = malloc_trim(0) } }
        settleTrimsLeft -= 1
        if settleTrimsLeft > 0, runningSearchCount > 0 || pendingOutputBytes > 0, let settleTimer {
            var second = Glibc.timeval(tv_sec: 1, tv_usec: 0)
            event_add(settleTimer, &second)
        }
    }

    /// A large burst has been read (or dropped) whole: the heap is to be trimmed.
    private var trimDue: Bool { pendingOutputBytes == 0 && outputPeak >= Self.trimAfterPeakBytes }

    /// A search's answer of `bytes` was built and dropped (`answer_too_large`): like a burst
    /// of output read, a large one is followed by a trim once no output is pending.
    func largeAnswerDropped(bytes: Int) {
        guard bytes >= Self.trimAfterPeakBytes else { return }
        outputPeak = max(outputPeak, bytes)
        if trimDue { activateFlush() }
    }

    /// Starts waiting searches while slots are free.
    private func startQueuedSearches() {
        while runningSearchCount < config.limits.maxRunningSearches, !outputOverBudget, let next = searchQueue.popFirst() {
            connections[next.connection]?.startQueued(key: next.key)
        }
        if queuedSearchCount == 0 { searchQueue.removeAll() }
    }

    /// Starts accepting on a listening socket (the loop owns and closes it).
    func serve(listeningSocket fd: Int32) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        // LEV_OPT_CLOSE_ON_FREE: the listener closes the socket when freed. Backlog 0: the
        // socket listens already (ours with its backlog, or systemd's with Backlog=); a
        // negative one would make libevent call listen(2) again with its default of 128.
        guard let l = evconnlistener_new(base, onAccept, context, UInt32(LEV_OPT_CLOSE_ON_FREE), 0, fd) else {
            throw SystemCallError(call: "evconnlistener_new", errno: errno)
        }
        AcceptBackoff.watch(l)
        listeners.append(l)
    }

    /// Runs the loop until it is stopped; returns on the loop thread.
    ///
    /// With `busyPollMicros`, after each wake-up the loop may keep polling (non-blocking turns)
    /// until that long has passed without an event, and only then sleep in `epoll_wait`. A
    /// client that waits for each answer sends its next request within tens of microseconds,
    /// and waking a sleeping core costs about as much on a virtual machine, so each of its
    /// round trips gets shorter. ``SpinPolicy`` decides when to poll: only while recent idle
    /// windows caught a request (then also for the answer of a search running off the loop),
    /// so requests spaced out (keystrokes) cost at most one idle window in 16 wake-ups. The
    /// setting is read at start.
    func run() {
        if config.busyPollMicros == 0 {
            event_base_dispatch(base)
        } else {
            let window = Duration.microseconds(config.busyPollMicros)
            // event_base_loop returns non-zero on an error or when no event is left, where
            // event_base_dispatch would have returned too.
            polling: while !stopping {
                if event_base_loop(base, EVLOOP_ONCE) != 0 { break }
                guard spin.shouldPoll(searching: runningSearchCount > 0) else { continue }
                pollCounts.windows &+= 1
                // Only windows that start with no search running are scored (see SpinPolicy).
                var idle = runningSearchCount == 0
                var until = ContinuousClock.now + window
                while !stopping && ContinuousClock.now < until {
                    let before = turns
                    if event_base_loop(base, EVLOOP_NONBLOCK) != 0 { break polling }
                    if turns != before {
                        if idle {
                            spin.caught()
                            pollCounts.caught &+= 1
                        }
                        idle = runningSearchCount == 0
                        until = ContinuousClock.now + window
                    }
                }
                if idle {
                    spin.missed()
                    pollCounts.missed &+= 1
                }
            }
        }
        for c in Array(connections.values) { c.close() }
        httpListener?.shutDown()
        // Tasks may still be winding down; from now on their posts are dropped, so freeing
        // the wake-up event with the loop is safe.
        inbox.close()
    }

    /// Sends a connection's outbox at the end of this loop turn, with the answers of every
    /// other callback of the turn (activating an event from the loop thread costs no syscall).
    func queueFlush(_ connection: UInt64) {
        if connectionsToFlush.isEmpty { activateFlush() }
        connectionsToFlush.append(connection)
    }

    /// Makes the end-of-turn callback run (searches to start, outboxes to send).
    private func activateFlush() {
        if let flushEvent { event_active(flushEvent, Int32(EV_READ), 0) }
    }

    /// A frame of a search running on the loop thread, handed over by its task at once (see
    /// ``LoopBound``). Unless more frames follow at once, it is sent now when this search is
    /// the only one running: the client starts waking up while the search goes on. With other
    /// searches running it waits for the end of the turn, to go out with theirs in one `send`.
    func deliverNow(connection id: UInt64, key: UInt64, bytes: OutgoingLine, moreSoon: Bool) {
        guard let connection = connections[id] else { return }
        connection.deliver(key: key, bytes: bytes)
        if !moreSoon && runningSearchCount == 1 { connection.flushOutbox() }
    }

    fileprivate func flushConnections() {
        if queuedSearchCount > 0 { startQueuedSearches() }
        if trimDue {
            outputPeak = 0
            malloc_trim(0)
            if settleTimer == nil { settleTimer = event_new(base, -1, 0, onSettleTimer, Unmanaged.passUnretained(self).toOpaque()) }
            if let settleTimer {
                settleTrimsLeft = 10
                var second = Glibc.timeval(tv_sec: 1, tv_usec: 0)
                event_add(settleTimer, &second)
            }
        }
        let list = connectionsToFlush
        connectionsToFlush = []
        for id in list { connections[id]?.flushOutbox() }
    }

    /// Makes the loop return at once.
    func stop() {
        stopping = true
        event_base_loopbreak(base)
    }

    private var stopping = false
    /// Socket and inbox callbacks run so far (the polling loop watches it for activity).
    var turns = 0
    /// Whether the loop polls before sleeping (with `busyPollMicros`; loop thread only).
    private var spin = SpinPolicy()
    /// Polling windows taken, and idle ones that caught a request or passed without one.
    private var pollCounts = (windows: 0, caught: 0, missed: 0)

    /// `stats.polling`: the setting, whether polling is on now, and the windows so far.
    var pollingJSON: JSONObject {
        var o = JSONObject()
        o.appendUnchecked("busyPollMicros", .number(Double(config.busyPollMicros)))
        o.appendUnchecked("on", .bool(config.busyPollMicros > 0 && spin.isOn))
        o.appendUnchecked("windows", .number(Double(pollCounts.windows)))
        o.appendUnchecked("idleCaught", .number(Double(pollCounts.caught)))
        o.appendUnchecked("idleMissed", .number(Double(pollCounts.missed)))
        return o
    }

    fileprivate func accept(_ fd: Int32) {
        guard let bev = bufferevent_socket_new(base, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            Glibc.close(fd)
            return
        }
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(
            id: id, bufferEvent: bev, loop: self, limits: config.limits, maxLineBytes: config.maxLineBytes,
            peer: PeerCredentials(socket: fd))
        let full = connections.values.lazy.filter { !$0.isClosing }.count >= config.limits.maxConnections
        connections[id] = connection
        let context = Unmanaged.passUnretained(connection).toOpaque()
        bufferevent_setcb(bev, onRead, onWrite, onEvent, context)
        // libevent writes at most 16 KiB per writev by default, then waits for the next
        // EPOLLOUT: a 60 KiB answer took four loop turns. Let one turn write it all.
        bufferevent_set_max_single_write(bev, 1 << 20)
        bufferevent_set_max_single_read(bev, 1 << 16)
        bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        connection.trackOutput()
        connection.applyLimits()
        if draining {
            // Accepted only to say why: a client that connects while the daemon stops gets an
            // answer, not a silent wait in the listen queue.
            connection.write(Frame.error(id: nil, index: nil, error: SearchError(
                .shuttingDown, "the daemon is stopping; connect again once it is back")).line())
            connection.closeAfterFlush()
        } else if full {
            Log.warning("refusing a connection: \(config.limits.maxConnections) connections already open")
            connection.write(Frame.error(id: nil, index: nil, error: SearchError(
                .tooManyConnections, "the daemon already serves \(config.limits.maxConnections) connections (limits.maxConnections)")).line())
            connection.closeAfterFlush()
        }
    }

    func removeConnection(_ id: UInt64) {
        connections[id] = nil
        // The connection may have been the last one a drain was waiting for.
        if draining { finishDrainIfIdle() }
    }

    fileprivate func drainInbox() {
        // An answer whose connection has gone may have been what a drain was waiting for.
        var answerWithoutConnection = false
        defer { if answerWithoutConnection && draining { finishDrainIfIdle() } }
        inbox.drain { message in
            switch message {
            case .frame(let id, let key, let bytes):
                connections[id]?.deliver(key: key, bytes: bytes)
            case .job(let job):
                executor.run(job)
            case .requestFinished(let id, let key, let requestID, let lastFrame):
                connections[id]?.finished(key: key, id: requestID, lastFrame: lastFrame)
                if draining { finishDrainIfIdle() }
            case .reloaded(let outcome):
                finishReload(outcome)
            case .decoded(let id, let result):
                if let c = connections[id] { c.decoded(result) } else { answerWithoutConnection = true }
            case .reply(let id, let bytes):
                if let c = connections[id] { c.replied(bytes) } else { answerWithoutConnection = true }
            case .encodedReply(let id, let bytes):
                if let c = connections[id] {
                    c.repliesEncodingOffLoop -= 1
                    c.replied(bytes)
                } else {
                    answerWithoutConnection = true
                }
            case .indexCreated(let requester, let name, let result):
                finishCreatingIndex(name, result, for: requester)
            case .indexDeleted(let requester, let name, let result):
                finishDeletingIndex(name, result, for: requester)
            case .onLoop(let work):
                work(self)
            case .http(let exchange, let output):
                httpListener?.deliver(exchange, output)
            }
        }
    }

    /// The `indices` payload: the indices `peer` may search.
    func indicesPayload(visibleTo peer: PeerIdentity?) -> JSONObject {
        let list: [JSONValue] = catalog.entries.filter { $0.access.maySee(peer) }.map { e in
            let d = e.searchable.description
            var o = JSONObject()
            o.appendUnchecked("name", .string(e.id.index))
            o.appendUnchecked("backend", .string(e.kind))
            o.appendUnchecked("documents", d.documentCount.map { .number(Double($0)) } ?? .null)
            o.appendUnchecked("searchableAttributes", .array(d.searchableAttributes.map { .string($0) }))
            o.appendUnchecked("attributesForFaceting", .array(d.attributesForFaceting.map { .string($0) }))
            // Whether it takes writes (an embedded index with a dataDir), and from where.
            o.appendUnchecked("writable", .bool(e.searchable is DurableIndex))
            if e.fingerprint == Catalog.createdFingerprint { o.appendUnchecked("createdBy", "createIndex") }
            let t = e.defaultTimeout.components
            o.appendUnchecked("timeoutMs", .number(Double(t.seconds * 1000 + t.attoseconds / 1_000_000_000_000_000)))
            return .object(o)
        }
        return JSONObject([("indices", .array(list))])
    }
}

// C callbacks: file-scope functions that get their object back through Unmanaged. The
// objects outlive their events: connections are freed only after `bufferevent_free`, and the
// loop only after its events.

private func onWake(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue()
    loop.turns &+= 1
    loop.drainInbox()
}

private func onSettleTimer(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().settleTrim()
}

private func onFlush(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().flushConnections()
}

private func onAccept(
    _ listener: OpaquePointer?, _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: Int32,
    _ context: UnsafeMutableRawPointer?
) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().accept(fd)
}

private func onRead(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue()
    connection.loop.turns &+= 1
    connection.readAvailable()
}

private func onWrite(_ bev: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue().wrote()
}

private func onEvent(_ bev: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue()
    if Int32(events) & BEV_EVENT_ERROR != 0 {
        connection.close()
    } else if Int32(events) & BEV_EVENT_TIMEOUT != 0 {
        if Int32(events) & BEV_EVENT_WRITING != 0 { connection.writeTimedOut() } else { connection.readTimedOut() }
    } else if Int32(events) & BEV_EVENT_EOF != 0 {
        connection.readAvailable()
        connection.peerEndedInput()
    }
}
