import FederatedSearchCore
import FederatedSearchEngine
import FederatedSearchEventLoop
import FederatedSearchProtocol
import FederatedSearchServer

/// The daemon's live subscriptions (`subscribe`) and watches (`watch`), on the loop thread only.
///
/// A subscription is a search answered as usual (its `results`, `merged` and `done` frames),
/// then kept: when a durable index it searches publishes a write group (or a source announces
/// a change, a polled source's interval passes, the catalog changes), the search runs again and
/// the subscriber (a ``LiveSink``) gets, per source and for the merged list, an `update` frame
/// with what changed against what it last received (``LiveDelta``), or a `resync` frame with
/// the whole page when the delta would name more hits than the page holds. Every frame of a
/// subscription after its first answer carries `seq`, one more each time, so a client sees it
/// missed nothing. At most one run per `minIntervalMs`: writes in between are coalesced into
/// the next. Only the indices a write touched wake the subscriptions on them, and of those
/// only the ones whose search the write may have changed (its ``ChangeProbe``, tried off the
/// loop) run again; subscriptions with the same request, rights and interval share one run
/// (a ``Group``); a run whose answer did not change sends nothing. A subscription runs with
/// its peer's rights as they are at each run, and ends with `unsubscribe` or its connection;
/// an HTTP stream's is then kept a minute (``ParkedSubscriptions``) for a client that comes
/// back with `Last-Event-ID`. The sources that announce their changes are watched while
/// followed (``ChangeWatches``); the `watch` op's watches are ``IndexWatchers``.
final class LiveSubscriptions {
    /// How often a search whose subscribers all have a backlog, or a subscriber owed an answer
    /// it had no room for, looks again.
    static let backlogRetry = Duration.milliseconds(100)

    private unowned let loop: EventLoop
    private var subscriptions: [Key: Subscription] = [:]
    private var groups: [Shared: Group] = [:]
    private var byIndex: [String: Set<Shared>] = [:]
    /// The change watches of the followed indices that announce their changes.
    private let changeWatches: ChangeWatches
    /// The ids of each sink's open subscriptions.
    private var perConnection: [UInt64: Set<String>] = [:]
    /// The sinks of open subscriptions by id (a connection, an HTTP stream).
    private var sinks: [UInt64: any LiveSink] = [:]
    private var nextSerial = 0
    /// The `watch` op's watches.
    private let watchers: IndexWatchers
    /// The indices whose write group is being probed, with the groups waiting their turn.
    private var probing: [String: [ChangeProbe.Changes]] = [:]
    /// Gone HTTP subscribers' subscriptions, by resume token.
    private var parked = ParkedSubscriptions()
    /// Set once the daemon drains: the indices followed no longer change.
    private var stopped = false
    /// Searches run after writes, and the frames they sent (for `stats`).
    private(set) var runs = 0
    /// Runs a write's probe spared: subscriptions on the written index it could not change.
    private(set) var runsSkipped = 0
    private(set) var updatesSent = 0

    init(loop: EventLoop) {
        self.loop = loop
        changeWatches = ChangeWatches(loop: loop)
        watchers = IndexWatchers(loop: loop)
    }

    var count: Int { subscriptions.count }

    /// How many subscriptions `connection` holds.
    func count(of connection: UInt64) -> Int { perConnection[connection]?.count ?? 0 }

    /// Starts a subscription for `connection` (its first answer follows), or returns why not
    /// (the caller answers it: an error frame on the socket, an HTTP status).
    func subscribe(
        _ connection: any LiveSink, id: String?, request: SearchRequest, minIntervalMs: Int, resume: (token: String, seq: Int)? = nil
    ) -> SearchError? {
        guard let id else { return SearchError(.missingField, "id: a subscription needs an id") }
        let key = Key(connection: connection.sinkID, id: id)
        if let refusal = refusal(key) { return refusal }
        let core = loop.core(answerByteLimit: connection.answerByteLimit)
        let planned: ServerCore.PlannedSearch
        do {
            planned = try core.plan(request, id: id, peer: connection.peerIdentity)
        } catch {
            return error
        }
        let peer = connection.peerIdentity
        let shared = Shared(
            request: Request(id: nil, operation: .search(request)).line(), peer: peer.map { UInt64($0.uid) << 32 | UInt64($0.gid) },
            indices: planned.sources.map(\.index).sorted(), answerByteLimit: connection.answerByteLimit,
            minIntervalMs: minIntervalMs, alone: request.restriction == nil ? nil : nextSerial + 1)
        let group =
            groups[shared]
            ?? {
                nextSerial += 1
                let g = Group(shared: shared, serial: nextSerial, request: request, peer: peer, indices: Set(shared.indices))
                g.queries = RunFrame.queries(of: planned)
                groups[shared] = g
                for index in g.indices { byIndex[index, default: []].insert(shared) }
                watchChanges()
                return g
            }()
        group.members.insert(key)
        nextSerial += 1
        let s = Subscription(key: key, serial: nextSerial, shared: shared)
        s.runsBefore = group.runsStarted
        for source in planned.sources where s.sourceIndices[source.name] == nil { s.sourceIndices[source.name] = source.index }
        s.token = connection.resumeToken
        // A `seq` past the last one sent is none the daemon sent: the whole answer again.
        if let resume, let p = parked.take(resume.token), p.shared == shared, resume.seq <= p.seq {
            // The client holds these pages (or, before `seq`, missed a frame of them).
            (s.pages, s.merged, s.seq, s.resumedAt) = (p.pages, p.merged, p.seq, resume.seq)
        }
        subscriptions[key] = s
        // A connection counts its first answer as a search in flight: past
        // limits.maxRequestsPerConnection, its next lines wait (pushed back, as searches are).
        connection.firstAnswerStarted()
        perConnection[connection.sinkID, default: []].insert(id)
        sinks[connection.sinkID] = connection
        // Its own first answer; the group's runs take it on from there.
        let serial = s.serial
        let inbox: Inbox = loop.inbox
        Task {
            let answer = await RunFrame.lines(of: planned, on: core)
            let frames = RunFrame.parse(answer)
            inbox.post(.onLoop { loop in loop.live.firstAnswer(key, serial: serial, answer, frames) })
        }
        return nil
    }

    /// Why a new subscription or watch `key` is refused: its id taken, or a limit reached
    /// (watches count as subscriptions).
    private func refusal(_ key: Key) -> SearchError? {
        let limits = loop.config.limits
        if subscriptions[key] != nil || watchers.contains(key) {
            return SearchError(.duplicateID, "id: subscription \(RequestID.display(key.id)) is already open on this connection")
        }
        if count(of: key.connection) >= limits.maxSubscriptionsPerConnection {
            return SearchError(
                .tooManyRequests,
                "this connection holds limits.maxSubscriptionsPerConnection (\(limits.maxSubscriptionsPerConnection)) subscriptions: unsubscribe one first"
            )
        }
        if subscriptions.count + watchers.count >= limits.maxSubscriptions {
            return SearchError(
                .tooManyRequests, "the daemon holds limits.maxSubscriptions (\(limits.maxSubscriptions)) subscriptions: try again later")
        }
        return nil
    }

    /// Starts watching `indices` for `connection` (`watch`): answered `watching`, then a
    /// `changed` frame for an index each time it changes (``indexChanged(_:)``, a reload);
    /// or returns why not: an index unknown, or one the peer may not search.
    func watch(_ connection: any LiveSink, id: String?, indices: [String]) -> SearchError? {
        guard let id else { return SearchError(.missingField, "id: a watch needs an id") }
        let key = Key(connection: connection.sinkID, id: id)
        if let refusal = refusal(key) { return refusal }
        let names = indices.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let core = loop.core(answerByteLimit: connection.answerByteLimit)
        do {
            _ = try core.plan(
                SearchRequest(query: "", targets: names.map { SearchTarget(index: $0, name: $0) }), id: id, peer: connection.peerIdentity)
        } catch {
            return error
        }
        watchers.add(key, indices: names, sink: connection)
        perConnection[key.connection, default: []].insert(id)
        sinks[key.connection] = connection
        watchChanges()
        connection.send(Self.line(["id": RequestID.json(id), "type": "watching", "indices": .array(names.map(JSONValue.string))]))
        return nil
    }

    /// Ends subscription `target` of `connection`: `unsubscribed`, or `unknown_request`.
    func unsubscribe(_ connection: Connection, id: String?, target: String) {
        guard remove(Key(connection: connection.id, id: target)) else {
            return connection.send(
                Frame.error(
                    id: id, index: nil,
                    error: SearchError(.unknownRequest, "target: no subscription with id \(RequestID.display(target)) on this connection")
                ).line())
        }
        var o = JSONObject()
        if let id { o.appendUnchecked("id", RequestID.json(id)) }
        o.appendUnchecked("type", "unsubscribed")
        o.appendUnchecked("target", RequestID.json(target))
        connection.send(Self.line(o))
    }

    /// Ends every subscription of a connection that closed; an HTTP stream's is parked.
    func connectionClosed(_ connection: UInt64) {
        for id in perConnection[connection] ?? [] {
            let key = Key(connection: connection, id: id)
            if let s = subscriptions[key], let token = s.token, s.answered, !loop.draining {
                parked.park(
                    token, shared: s.shared, pages: s.pages, merged: s.merged, seq: s.seq, limit: loop.config.limits.maxSubscriptions)
            }
            remove(key)
        }
    }

    /// A durable index published a write group: the searches on it run again, each at most
    /// once per its `minIntervalMs`, once for all the subscriptions that share it.
    ///
    /// With the documents the group changed, only the searches it may have changed run again:
    /// their ``ChangeProbe`` is built and tried on each group's queries of the index off the
    /// loop, one write group of an index at a time (the next ones wait their turn, and past
    /// ``maxQueuedProbes`` every search on the index runs instead), and the groups it may have
    /// changed come back to ``probed(_:_:of:)``. Without them (a reload, a settings change, a
    /// large group), all of them run.
    func indexChanged(_ index: String, changes: ChangeProbe.Changes? = nil) {
        watchers.changed(index)
        guard let changes else { return runAgain(on: index) }
        guard probing[index] == nil else {
            if probing[index]!.count < Self.maxQueuedProbes {
                probing[index]!.append(changes)
            } else {
                probing[index] = []
                runAgain(on: index)
            }
            return
        }
        probing[index] = []
        probe(index, changes)
    }

    /// Write groups of an index waiting for the one being probed, at most.
    static let maxQueuedProbes = 8

    /// Runs every search on `index` again.
    func runAgain(on index: String) { runAgain(byIndex[index] ?? []) }

    private func runAgain(_ shareds: some Sequence<Shared>) {
        for shared in shareds {
            guard let g = groups[shared] else { continue }
            g.dirty = true
            schedule(g)
        }
    }

    /// Tries the probe of `changes` on the groups of `index` off the loop.
    private func probe(_ index: String, _ changes: ChangeProbe.Changes) {
        var tried: [(shared: Shared, queries: [SearchQuery])] = []
        for shared in byIndex[index] ?? [] {
            guard let g = groups[shared] else { continue }
            if let queries = g.queries[index] {
                tried.append((shared, queries))
            } else {
                g.dirty = true
                schedule(g)
            }
        }
        let (shareds, queries) = (tried.map(\.shared), tried.map(\.queries))
        let inbox: Inbox = loop.inbox
        Task {
            // A probe that cannot be built spares nothing.
            let changed = (try? changes.probe()).map { RunFrame.mayHaveChanged(queries, $0) } ?? Array(queries.indices)
            let affected = changed.map { shareds[$0] }
            inbox.post(.onLoop { loop in loop.live.probed(index, affected, of: shareds.count) })
        }
    }

    /// The groups a write group's probe may have changed (of `tried`) run again; the next
    /// write group of the index waiting is probed.
    private func probed(_ index: String, _ shareds: [Shared], of tried: Int) {
        runsSkipped += tried - shareds.count
        runAgain(shareds)
        if let next = probing[index]?.first {
            probing[index]!.removeFirst()
            probe(index, next)
        } else {
            probing[index] = nil
        }
    }

    /// The catalog changed (a reload, `createIndex`, `deleteIndex`): every search runs again.
    func catalogChanged() {
        watchChanges()
        watchers.changedAll()
        runAgain(groups.keys)
    }

    @discardableResult
    private func remove(_ key: Key) -> Bool {
        if watchers.remove(key) {
            watchChanges()
        } else {
            guard let s = subscriptions.removeValue(forKey: key) else { return false }
            if let g = groups[s.shared] {
                g.members.remove(key)
                if g.members.isEmpty {
                    groups[s.shared] = nil
                    for index in g.indices { unindex(s.shared, from: index) }
                }
            }
        }
        perConnection[key.connection]?.remove(key.id)
        if perConnection[key.connection]?.isEmpty == true {
            perConnection[key.connection] = nil
            sinks[key.connection] = nil
        }
        return true
    }

    private func unindex(_ shared: Shared, from index: String) {
        byIndex[index]?.remove(shared)
        if byIndex[index]?.isEmpty == true {
            byIndex[index] = nil
            watchChanges()
        }
    }

    /// The indices followed changed: the writes of those with subscriptions keep their
    /// changed documents for the probes, and the sources that announce their changes are
    /// watched while they have subscriptions or watches (a watch starts with an index's first
    /// and stops with its last, or when a reload replaced the index).
    private func watchChanges() {
        guard !stopped else { return }
        let wanted = Set(byIndex.keys)
        if DurableIndex.probesWanted.withLock({ $0 }) != wanted { DurableIndex.probesWanted.withLock { $0 = wanted } }
        changeWatches.follow(wanted.union(watchers.indices))
    }

    /// Stops every change watch (the daemon drains), for good.
    func stopWatching() {
        stopped = true
        changeWatches.stop()
    }

    /// A subscriber whose unread output is past `limits.maxPendingOutputBytes`: its updates
    /// wait (the changes meanwhile come together once it reads), so a subscriber that stops
    /// reading holds no more memory than a slow reader of answers, and is closed as one is.
    private func hasBacklog(_ key: Key) -> Bool {
        sinks[key.connection]?.hasBacklog ?? false
    }

    /// Runs `g` now if its interval has passed, else once it has; while every subscriber of it
    /// has a backlog, it waits.
    private func schedule(_ g: Group) {
        guard !g.running, !g.timerArmed else { return }
        var wait = g.lastRun.map { $0 + g.minInterval - .now } ?? .zero
        if wait <= .zero, g.members.allSatisfy(hasBacklog) { wait = max(g.minInterval, Self.backlogRetry) }
        guard wait > .zero else { return run(g) }
        // One timer per group, made once and armed again (freeing it from its own callback
        // would free the closure that runs).
        if g.timer == nil {
            g.timer = LoopEvent(on: loop.base, .timer(repeating: false)) { [weak self, weak g] in
                guard let self, let g else { return }
                g.timerArmed = false
                if g.dirty { self.schedule(g) }
            }
        }
        guard let timer = g.timer else { return }
        g.timerArmed = true
        timer.schedule(after: wait)
    }

    /// Runs the group's search off the loop (planned here, with the peer's rights as they are
    /// now); its frames come back to ``groupAnswer(_:serial:_:)``.
    private func run(_ g: Group) {
        g.dirty = false
        g.lastRun = .now
        let core = loop.core(answerByteLimit: g.shared.answerByteLimit)
        let planned: ServerCore.PlannedSearch
        do {
            planned = try core.plan(g.request, id: nil, peer: g.peer)
        } catch {
            // The index went (a reload) or the peer may no longer search it: said, and kept.
            for key in g.members { sinks[key.connection]?.send(Frame.error(id: key.id, index: nil, error: error).line()) }
            return
        }
        // The indices it searches now: the writes that wake it follow them.
        let now = Set(planned.sources.map(\.index))
        if now != g.indices {
            for index in g.indices.subtracting(now) { unindex(g.shared, from: index) }
            for index in now.subtracting(g.indices) { byIndex[index, default: []].insert(g.shared) }
            g.indices = now
            watchChanges()
        }
        g.queries = RunFrame.queries(of: planned)
        // Indices that cannot tell of their changes are searched again every pollIntervalMs.
        let poll = now.compactMap { loop.catalog.entry($0)?.pollInterval }.min()
        if poll != g.pollInterval {
            g.pollInterval = poll
            g.pollTimer = poll.flatMap { interval in
                let timer = LoopEvent(on: loop.base, .timer(repeating: true)) { [weak self, weak g] in
                    guard let self, let g else { return }
                    g.dirty = true
                    self.schedule(g)
                }
                timer?.schedule(after: interval)
                return timer
            }
        }
        g.running = true
        g.runsStarted += 1
        runs += 1
        let (shared, serial, number) = (g.shared, g.serial, g.runsStarted)
        let inbox: Inbox = loop.inbox
        Task {
            let frames = RunFrame.parse(await RunFrame.lines(of: planned, on: core))
            inbox.post(.onLoop { loop in loop.live.groupAnswer(shared, serial: serial, run: number, frames) })
        }
    }

    /// A subscription's first answer: sent as it is (under its id), and kept.
    private func firstAnswer(_ key: Key, serial: Int, _ lines: [[UInt8]], _ frames: [RunFrame]) {
        // Told even when the subscription ended meanwhile (a connection counts it in flight).
        (sinks[key.connection] ?? loop.connections[key.connection])?.firstAnswerArrived()
        guard let s = subscriptions[key], s.serial == serial, !s.answered, let g = groups[s.shared],
            let connection = sinks[key.connection], !connection.isClosing
        else { return }
        if let resumedAt = s.resumedAt {
            // A resumed subscription: what changed since the pages the client holds, or, if it
            // missed a frame of them, every page whole.
            if resumedAt != s.seq { (s.pages, s.merged, s.seq) = ([:], nil, resumedAt) }
            send(frames, to: s)
        } else {
            // The last line is the `done` frame.
            for (i, line) in lines.enumerated() { connection.send(i == lines.count - 1 ? withFreshness(line, s) : line) }
            for frame in frames {
                switch frame {
                case .results(let name, let page): s.pages[name] = page
                case .merged(let page): s.merged = page
                case .other: break
                }
            }
        }
        s.answered = true
        // A write may have landed between this answer's run and now, unseen by the group's
        // runs, which skip a subscription not answered yet: one more run tells.
        g.dirty = true
        schedule(g)
    }

    /// A run of a group's search: each subscriber gets what changed against what it holds.
    private func groupAnswer(_ shared: Shared, serial: Int, run: Int, _ frames: [RunFrame]) {
        guard let g = groups[shared], g.serial == serial else { return }
        g.running = false
        g.lastAnswer = frames
        for key in g.members {
            // Not yet answered, or answered from a later state than this run saw.
            guard let s = subscriptions[key], s.answered, run > s.runsBefore else { continue }
            if hasBacklog(key) {
                // It is sent this answer once it reads (see ``catchUp(_:)``), with no new run.
                g.owed.insert(key)
                continue
            }
            g.owed.remove(key)
            send(frames, to: s)
        }
        if !g.owed.isEmpty { armCatchUp(g) }
        if g.dirty { schedule(g) }
    }

    /// One run's frames to one subscriber: what changed against what it holds.
    private func send(_ frames: [RunFrame], to s: Subscription) {
        guard let connection = sinks[s.key.connection], !connection.isClosing else { return }
        for frame in frames {
            switch frame {
            case .results(let name, let page):
                send(s, on: connection, old: s.pages[name], new: page, target: ("index", .string(name)))
                s.pages[name] = page
            case .merged(let page):
                send(s, on: connection, old: s.merged, new: page, target: ("merged", true))
                s.merged = page
            case .other(let line):
                // An error (one index's, or the whole search's): said each time, as a search says it.
                connection.send(Self.withID(line, s.key.id))
            }
        }
    }

    /// Looks again after ``backlogRetry`` for subscribers owed the group's last answer.
    private func armCatchUp(_ g: Group) {
        if g.catchUpTimer == nil {
            g.catchUpTimer = LoopEvent(on: loop.base, .timer(repeating: false)) { [weak self, weak g] in
                guard let self, let g else { return }
                self.catchUp(g)
            }
        }
        g.catchUpTimer?.schedule(after: Self.backlogRetry)
    }

    /// Sends the group's last answer to each owed subscriber that has read its backlog.
    private func catchUp(_ g: Group) {
        guard let answer = g.lastAnswer else { return }
        for key in g.owed {
            guard let s = subscriptions[key], g.members.contains(key) else {
                g.owed.remove(key)
                continue
            }
            guard !hasBacklog(key) else { continue }
            g.owed.remove(key)
            send(answer, to: s)
        }
        if !g.owed.isEmpty { armCatchUp(g) }
    }

    /// A frame of a shared run, under a subscriber's id.
    private static func withID(_ frame: JSONObject, _ id: String) -> [UInt8] {
        var o = JSONObject()
        o.appendUnchecked("id", RequestID.json(id))
        for e in frame where e.key != "id" { o.appendUnchecked(e.key, e.value) }
        return line(o)
    }

    /// One `update` (or `resync`) frame from `old` to `new`, if they differ.
    private func send(_ s: Subscription, on connection: any LiveSink, old: LivePage?, new: LivePage, target: (String, JSONValue)) {
        if let old, old == new { return }
        var o = JSONObject()
        o.appendUnchecked("id", RequestID.json(s.key.id))
        if let old, let delta = LiveDelta.between(old, new), delta.hitCount <= new.hits.count {
            guard !delta.isEmpty else { return }
            s.seq += 1
            o.appendUnchecked("type", "update")
            o.appendUnchecked("seq", .number(Double(s.seq)))
            o.appendUnchecked(target.0, target.1)
            for e in delta.json { o.appendUnchecked(e.key, e.value) }
        } else {
            s.seq += 1
            o.appendUnchecked("type", "resync")
            o.appendUnchecked("seq", .number(Double(s.seq)))
            o.appendUnchecked(target.0, target.1)
            if target.0 == "merged" {
                for e in new.answer { o.appendUnchecked(e.key, e.value) }
            } else {
                o.appendUnchecked("results", .object(new.answer))
            }
        }
        updatesSent += 1
        connection.send(Self.line(o))
    }

    /// A frame's line, newline included.
    static func line(_ o: JSONObject) -> [UInt8] {
        var out = JSONWriter.bytes(.object(o))
        out.append(0x0A)
        return out
    }

    /// The first answer's `done` frame with each source's freshness in its status.
    private func withFreshness(_ line: [UInt8], _ s: Subscription) -> [UInt8] {
        guard case .object(var done)? = try? JSONParser.parse(line.last == 0x0A ? Array(line.dropLast()) : line),
            done["type"] == "done", case .object(var sources)? = done["sources"]
        else { return line }
        for e in sources {
            guard case .object(var status) = e.value, let index = s.sourceIndices[e.key], let f = changeWatches.freshness(of: index) else {
                continue
            }
            status["freshness"] = f
            sources[e.key] = .object(status)
        }
        done["sources"] = .object(sources)
        return Self.line(done)
    }

    /// `stats.subscriptions`: the counts, and how each index with subscriptions on it is kept
    /// fresh (`freshness.<index>.kind`: see ``ChangeWatches/freshness(of:)``).
    var json: JSONObject {
        var freshness = JSONObject()
        for index in byIndex.keys.sorted() { freshness[index] = changeWatches.freshness(of: index) }
        return [
            "open": .number(Double(subscriptions.count)), "watches": .number(Double(watchers.count)), "runs": .number(Double(runs)),
            "updates": .number(Double(updatesSent + watchers.sent)), "runsSkipped": .number(Double(runsSkipped)),
            "freshness": .object(freshness),
        ]
    }
}
