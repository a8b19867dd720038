#if canImport(Glibc)
import Glibc
#endif
import CGlibcExtras
import Dispatch
import FederatedSearchEventLoop
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchProtocol

/// The libevent loop: the listeners, every connection, the inbox, signals and timers.
/// Everything here runs on the one loop thread; other threads reach it only through ``Inbox``.
final class EventLoop {
    let base: EventBase
    private(set) var inbox: Inbox!
    /// Runs fast in-memory queries' tasks on this thread.
    private(set) var executor: LoopExecutor!
    /// Activated when a connection has answers to send; runs at the end of the loop turn.
    private var flushEvent: LoopEvent?
    /// Connections with answers waiting in their outbox (see ``Connection/flushOutbox()``).
    private var connectionsToFlush: [UInt64] = []
    /// Signals and timers, freed with the loop.
    var events: [LoopEvent] = []
    var listeners: [SocketListener] = []
    /// The HTTP listener, if the config has one.
    var httpListener: HTTPListener?
    private(set) var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 1
    /// The searchables new requests use; replaced whole by a reload. Running requests keep
    /// the sources they resolved at their start.
    /// The searchables served. A new one (reload, `createIndex`, `deleteIndex`) runs every
    /// live subscription again: an index may have come, gone or changed.
    var catalog: Catalog {
        didSet { live.catalogChanged() }
    }
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

    /// A loop on `base` (a new one if nil: the daemon passes the base its outgoing HTTP was
    /// installed on, see ``Daemon/run(arguments:registry:)``).
    init(config: DaemonConfig, catalog: Catalog, loader: CatalogLoader, stats: DaemonStats, base existing: EventBase? = nil) throws {
        base = try existing ?? EventBase()
        self.catalog = catalog
        self.config = config
        self.loader = loader
        self.stats = stats
        self.health = SourceHealth(settings: config.circuitBreaker)
        inbox = try Inbox(on: base, maxRounds: Self.inboxRounds) { [unowned self] in
            turns &+= 1
            drainInbox()
        }
        guard let flush = LoopEvent(on: base, .trigger, { [unowned self] in flushConnections() }) else {
            throw SystemCallError(call: "event_new(flush)", errno: errno)
        }
        flushEvent = flush
        executor = LoopExecutor(inbox: inbox)
        try installSignals()
    }

    /// How many times one wake-up hands out messages posted while it runs: a search task
    /// running on the loop posts its frames and its end from inside, and they go out in the
    /// same turn instead of waking the loop again for each.
    static let inboxRounds = 8

    deinit {
        // Everything made on the base goes before it.
        httpListener = nil
        listeners = []
        events = []
        flushEvent = nil
        settleTimer = nil
        inbox?.close()
    }

    var connectionCount: Int { connections.count }

    /// Searches running and waiting for a slot.
    var searches = SearchSlots()
    /// The connections of the latest searches (whether one client is alone).
    var requesters = RecentRequesters()
    /// Where searches ran, for `stats.placement` (loop thread only).
    var placements = PlacementCounts()
    /// The live subscriptions of every connection.
    private(set) lazy var live = LiveSubscriptions(loop: self)

    /// A connection's search ended or was dropped.
    func searchEnded(_ search: RunningSearch) {
        if search.onLoop { searches.onLoop -= 1 }
        releaseSearchSlot()
        let dropped = stats.takeRefusedPageBytes()
        if dropped > 0 { largeAnswerDropped(bytes: dropped) }
    }

    /// Queues a connection's search until a slot is free.
    func enqueueSearch(connection: UInt64, key: UInt64) {
        searches.enqueue(connection: connection, key: key) { connections[$0]?.queuedSearches[$1] != nil }
    }

    /// One running search fewer; the oldest waiting ones start at the end of this loop turn
    /// (not in the middle of the callback that ended this one).
    func releaseSearchSlot() {
        searches.running -= 1
        if searches.queued > 0 { activateFlush() }
    }

    /// Bytes held for clients (see ``MemoryBudget``).
    private(set) var memory = MemoryBudget()

    /// Whether clients hold more unread output than `limits.maxTotalPendingOutputBytes`: no
    /// search starts until they read (see ``Connection/admit(key:waiting:dequeued:)``).
    var outputOverBudget: Bool { memory.isOver(config.limits.maxTotalPendingOutputBytes) }

    /// Output was queued (positive) or written or dropped (negative) for some client.
    func outputChanged(by delta: Int) {
        let wasOver = outputOverBudget
        memory.outputChanged(by: delta)
        outputBudgetMoved(wasOver: wasOver)
    }

    /// Streamed output was queued (positive), or copied to libevent or dropped (negative).
    func streamedOutputChanged(by delta: Int) {
        let wasOver = outputOverBudget
        memory.streamedOutputChanged(by: delta)
        outputBudgetMoved(wasOver: wasOver)
    }

    /// Waiting searches start once the output is back under budget; once the clients have read
    /// a large burst, the heap is trimmed: both at the end of the turn.
    private func outputBudgetMoved(wasOver: Bool) {
        if wasOver, !outputOverBudget, searches.queued > 0 { activateFlush() }
        if memory.outputTrimDue { activateFlush() }
    }

    /// A connection's unfinished line grew (positive), or was completed or dropped (negative).
    func pendingInputChanged(by delta: Int) {
        guard delta != 0 else { return }
        // Clients that sent large lines and left: their buffers are given back to the system,
        // off the loop (on a large heap a trim takes a while, and glibc's is thread-safe).
        if memory.inputChanged(by: delta) { DispatchQueue.global(qos: .utility).async { _ = malloc_trim(0) } }
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

    /// After a burst's trim, searches whose clients left may still end (cancelled, their
    /// pages built meanwhile) and free more: the heap is trimmed again a second later, and
    /// each second after while searches still run (a few times at most).
    private var settleTimer: LoopEvent?
    private var settleTrimsLeft = 0

    private func settleTrim() {
        // Off the loop: on a large heap a trim takes a while, and glibc's is thread-safe.
        if memory.pendingOutputBytes == 0 { DispatchQueue.global(qos: .utility).async { _ = malloc_trim(0) } }
        settleTrimsLeft -= 1
        if settleTrimsLeft > 0, searches.running > 0 || memory.pendingOutputBytes > 0 { settleTimer?.schedule(after: .seconds(1)) }
    }

    /// A search's answer of `bytes` was built and dropped (`answer_too_large`): like a burst
    /// of output read, a large one is followed by a trim once no output is pending.
    func largeAnswerDropped(bytes: Int) {
        memory.largeAnswerDropped(bytes: bytes)
        if memory.outputTrimDue { activateFlush() }
    }

    /// Starts waiting searches while slots are free.
    private func startQueuedSearches() {
        while let next = searches.next(slotFree: searches.running < config.limits.maxRunningSearches && !outputOverBudget) {
            connections[next.connection]?.startQueued(key: next.key)
        }
    }

    /// Starts accepting on a listening socket (the loop owns and closes it).
    func serve(listeningSocket fd: Int32) throws {
        listeners.append(try SocketListener(on: base, descriptor: fd) { [unowned self] in accept($0) })
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
            base.run()
        } else {
            let window = Duration.microseconds(config.busyPollMicros)
            // event_base_loop returns non-zero on an error or when no event is left, where
            // event_base_dispatch would have returned too.
            polling: while !stopping {
                if !base.runOnce(blocking: true) { break }
                guard spin.shouldPoll(searching: searches.running > 0) else { continue }
                pollCounts.windows &+= 1
                // Only windows that start with no search running are scored (see SpinPolicy).
                var idle = searches.running == 0
                var until = ContinuousClock.now + window
                while !stopping && ContinuousClock.now < until {
                    let before = turns
                    if !base.runOnce(blocking: false) { break polling }
                    if turns != before {
                        if idle {
                            spin.caught()
                            pollCounts.caught &+= 1
                        }
                        idle = searches.running == 0
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
    private func activateFlush() { flushEvent?.activate() }

    /// A frame of a search running on the loop thread, handed over by its task at once (see
    /// ``LoopBound``). Unless more frames follow at once, it is sent now when this search is
    /// the only one running: the client starts waking up while the search goes on. With other
    /// searches running it waits for the end of the turn, to go out with theirs in one `send`.
    func deliverNow(connection id: UInt64, key: UInt64, bytes: OutgoingLine, moreSoon: Bool) {
        guard let connection = connections[id] else { return }
        connection.deliver(key: key, bytes: bytes)
        if !moreSoon && searches.running == 1 { connection.flushOutbox() }
    }

    private func flushConnections() {
        if searches.queued > 0 { startQueuedSearches() }
        if memory.outputTrimDue {
            memory.outputTrimmed()
            malloc_trim(0)
            if settleTimer == nil { settleTimer = LoopEvent(on: base, .timer(repeating: false)) { [unowned self] in settleTrim() } }
            settleTrimsLeft = 10
            settleTimer?.schedule(after: .seconds(1))
        }
        let list = connectionsToFlush
        connectionsToFlush = []
        for id in list { connections[id]?.flushOutbox() }
    }

    /// Makes the loop return at once.
    func stop() {
        stopping = true
        base.stop()
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

    private func accept(_ fd: Int32) {
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(
            id: id, loop: self, limits: config.limits, maxLineBytes: config.maxLineBytes, peer: PeerCredentials(socket: fd))
        // The connection holds its socket, which tells it of its events until it is freed.
        guard let socket = try? BufferedSocket(on: base, descriptor: fd, handler: connection) else { return }
        let full = connections.values.lazy.filter { !$0.isClosing }.count >= config.limits.maxConnections
        connections[id] = connection
        connection.attach(socket)
        if draining {
            // Accepted only to say why: a client that connects while the daemon stops gets an
            // answer, not a silent wait in the listen queue.
            connection.write(
                Frame.error(
                    id: nil, index: nil,
                    error: SearchError(
                        .shuttingDown, "the daemon is stopping; connect again once it is back")
                ).line())
            connection.closeAfterFlush()
        } else if full {
            Log.warning("refusing a connection: \(config.limits.maxConnections) connections already open")
            connection.write(
                Frame.error(
                    id: nil, index: nil,
                    error: SearchError(
                        .tooManyConnections, "the daemon already serves \(config.limits.maxConnections) connections (limits.maxConnections)"
                    )
                ).line())
            connection.closeAfterFlush()
        }
    }

    func removeConnection(_ id: UInt64) {
        connections[id] = nil
        // The connection may have been the last one a drain was waiting for.
        if draining { finishDrainIfIdle() }
    }

    private func drainInbox() {
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
}
