import FederatedSearchCore
import FederatedSearchEventLoop
import FederatedSearchProtocol
import FederatedSearchServer

/// The daemon's live subscriptions (`subscribe`), on the loop thread only.
///
/// A subscription is a search answered as usual (its `results`, `merged` and `done` frames),
/// then kept: when a durable index it searches publishes a write group, the search runs again
/// and the connection gets, per source and for the merged list, an `update` frame with what
/// changed against what it last received (``LiveDelta``), or a `resync` frame with the whole
/// page when the delta would name more hits than the page holds. Every frame of a
/// subscription after its first answer carries `seq`, one more each time, so a client sees it
/// missed nothing. At most one run per `minIntervalMs`: writes in between are coalesced into
/// the next. Only the indices a write touched wake the subscriptions on them; a run whose
/// answer did not change sends nothing. A subscription runs with its peer's rights, as its
/// first search did, and ends with `unsubscribe` or its connection.
final class LiveSubscriptions {
    /// A subscription: its connection and its id there.
    struct Key: Hashable, Sendable {
        var connection: UInt64
        var id: String
    }

    private final class Subscription {
        let key: Key
        /// Tells this subscription's runs from those of an earlier one under the same key.
        let serial: Int
        let request: SearchRequest
        let peer: PeerIdentity?
        let indices: Set<String>
        let minInterval: Duration
        let answerByteLimit: Int
        var seq = 0
        /// What the client holds: each source's page, and the merged list's.
        var pages: [String: LivePage] = [:]
        var merged: LivePage?
        var lastRun: ContinuousClock.Instant?
        /// A write landed since the last run began.
        var dirty = false
        var running = false
        var timer: LoopEvent?
        var timerArmed = false

        init(
            key: Key, serial: Int, request: SearchRequest, peer: PeerIdentity?, indices: Set<String>, minInterval: Duration,
            answerByteLimit: Int
        ) {
            self.key = key
            self.serial = serial
            self.request = request
            self.peer = peer
            self.indices = indices
            self.minInterval = minInterval
            self.answerByteLimit = answerByteLimit
        }
    }

    /// How often a subscription whose client has a backlog looks again.
    static let backlogRetry = Duration.milliseconds(100)

    private unowned let loop: EventLoop
    private var subscriptions: [Key: Subscription] = [:]
    private var byIndex: [String: Set<Key>] = [:]
    private var perConnection: [UInt64: Int] = [:]
    private var nextSerial = 0
    /// Runs after writes, and the frames they sent (for `stats`).
    private(set) var runs = 0
    private(set) var updatesSent = 0

    init(loop: EventLoop) { self.loop = loop }

    var count: Int { subscriptions.count }

    /// How many subscriptions `connection` holds.
    func count(of connection: UInt64) -> Int { perConnection[connection] ?? 0 }

    /// Starts a subscription for `connection` (its first answer follows), or answers why not.
    func subscribe(_ connection: Connection, id: String?, request: SearchRequest, minIntervalMs: Int) {
        guard let id else {
            return connection.write(
                Frame.error(id: nil, index: nil, error: SearchError(.missingField, "id: a subscription needs an id")).line())
        }
        let key = Key(connection: connection.id, id: id)
        let limits = loop.config.limits
        let refusal: SearchError? =
            if subscriptions[key] != nil {
                SearchError(.duplicateID, "id: subscription \(RequestID.display(id)) is already open on this connection")
            } else if count(of: connection.id) >= limits.maxSubscriptionsPerConnection {
                SearchError(
                    .tooManyRequests,
                    "this connection holds limits.maxSubscriptionsPerConnection (\(limits.maxSubscriptionsPerConnection)) subscriptions: unsubscribe one first"
                )
            } else if subscriptions.count >= limits.maxSubscriptions {
                SearchError(
                    .tooManyRequests, "the daemon holds limits.maxSubscriptions (\(limits.maxSubscriptions)) subscriptions: try again later"
                )
            } else {
                nil
            }
        if let refusal { return connection.write(Frame.error(id: id, index: nil, error: refusal).line()) }
        let core = connection.core
        let planned: ServerCore.PlannedSearch
        do {
            planned = try core.plan(request, id: id, peer: connection.peerIdentity)
        } catch {
            return connection.write(Frame.error(id: id, index: nil, error: error).line())
        }
        nextSerial += 1
        let s = Subscription(
            key: key, serial: nextSerial, request: request, peer: connection.peerIdentity, indices: Set(planned.sources.map(\.index)),
            minInterval: .milliseconds(minIntervalMs), answerByteLimit: connection.limits.maxAnswerBytes)
        subscriptions[key] = s
        for index in s.indices { byIndex[index, default: []].insert(key) }
        perConnection[connection.id, default: 0] += 1
        run(s, first: true)
    }

    /// Ends subscription `target` of `connection`: `unsubscribed`, or `unknown_request`.
    func unsubscribe(_ connection: Connection, id: String?, target: String) {
        guard remove(Key(connection: connection.id, id: target)) else {
            return connection.write(
                Frame.error(
                    id: id, index: nil,
                    error: SearchError(.unknownRequest, "target: no subscription with id \(RequestID.display(target)) on this connection")
                ).line())
        }
        var o = JSONObject()
        if let id { o.appendUnchecked("id", RequestID.json(id)) }
        o.appendUnchecked("type", "unsubscribed")
        o.appendUnchecked("target", RequestID.json(target))
        connection.write(Self.line(o))
    }

    /// Ends every subscription of a connection that closed.
    func connectionClosed(_ connection: UInt64) {
        guard perConnection[connection] != nil else { return }
        for key in subscriptions.keys where key.connection == connection { remove(key) }
    }

    /// A durable index published a write group: the subscriptions on it run again, each at
    /// most once per its `minIntervalMs`.
    func indexChanged(_ index: String) {
        for key in byIndex[index] ?? [] {
            guard let s = subscriptions[key] else { continue }
            s.dirty = true
            schedule(s)
        }
    }

    @discardableResult
    private func remove(_ key: Key) -> Bool {
        guard let s = subscriptions.removeValue(forKey: key) else { return false }
        for index in s.indices {
            byIndex[index]?.remove(key)
            if byIndex[index]?.isEmpty == true { byIndex[index] = nil }
        }
        perConnection[key.connection, default: 1] -= 1
        if perConnection[key.connection] == 0 { perConnection[key.connection] = nil }
        return true
    }

    /// Runs `s` now if its interval has passed, else once it has. While its connection has
    /// more than `limits.maxPendingOutputBytes` unread, it waits (the changes meanwhile are
    /// coalesced into one run once the client reads): a subscriber that stops reading holds
    /// no more memory than a slow reader of answers, and is closed as one is.
    private func schedule(_ s: Subscription) {
        guard !s.running, !s.timerArmed else { return }
        var wait = s.lastRun.map { $0 + s.minInterval - .now } ?? .zero
        if wait <= .zero, let c = loop.connections[s.key.connection], c.unsentBytes > c.limits.maxPendingOutputBytes {
            wait = max(s.minInterval, Self.backlogRetry)
        }
        guard wait > .zero else { return run(s, first: false) }
        // One timer per subscription, made once and armed again (freeing it from its own
        // callback would free the closure that runs).
        if s.timer == nil {
            s.timer = LoopEvent(on: loop.base, .timer(repeating: false)) { [weak self, weak s] in
                guard let self, let s else { return }
                s.timerArmed = false
                if s.dirty { self.schedule(s) }
            }
        }
        s.timerArmed = true
        s.timer?.schedule(after: wait)
    }

    /// Runs the subscription's search off the loop (planned here, with the peer's rights as
    /// they are now); its frames come back to ``answered``.
    private func run(_ s: Subscription, first: Bool) {
        s.dirty = false
        s.lastRun = .now
        let core = loop.core(answerByteLimit: s.answerByteLimit)
        let planned: ServerCore.PlannedSearch
        do {
            planned = try core.plan(s.request, id: s.key.id, peer: s.peer)
        } catch {
            // The index went (a reload) or the peer may no longer search it: said, and kept.
            loop.connections[s.key.connection]?.write(Frame.error(id: s.key.id, index: nil, error: error).line())
            return
        }
        s.running = true
        let (key, serial) = (s.key, s.serial)
        let inbox: Inbox = loop.inbox
        Task {
            let lines = LineCollector()
            let done = await core.run(planned) { line, _ in lines.append(line) }
            let answer = lines.lines.map(\.bytes) + [done.line()]
            inbox.post(.onLoop { loop in loop.live.answered(key, serial: serial, answer, first: first) })
        }
    }

    /// A run's frames: the first answer goes out as it is; a later one as deltas.
    private func answered(_ key: Key, serial: Int, _ lines: [[UInt8]], first: Bool) {
        guard let s = subscriptions[key], s.serial == serial else { return }
        s.running = false
        guard let connection = loop.connections[key.connection], !connection.isClosing else { return }
        if !first { runs += 1 }
        for line in lines {
            guard case .object(let frame)? = try? JSONParser.parse(line.last == 0x0A ? Array(line.dropLast()) : line) else { continue }
            switch frame["type"]?.stringValue {
            case "results":
                guard let name = frame["index"]?.stringValue, let results = frame["results"]?.objectValue else { continue }
                let page = LivePage(answer: results)
                if first {
                    connection.write(line)
                } else {
                    send(s, on: connection, old: s.pages[name], new: page, target: ("index", .string(name)))
                }
                s.pages[name] = page
            case "merged":
                var rest = JSONObject()
                for e in frame where e.key != "id" && e.key != "type" { rest.appendUnchecked(e.key, e.value) }
                let page = LivePage(answer: rest)
                if first {
                    connection.write(line)
                } else {
                    send(s, on: connection, old: s.merged, new: page, target: ("merged", true))
                }
                s.merged = page
            case "done":
                if first { connection.write(line) }
            default:
                // An error (one index's, or the whole search's): said each time, as a search says it.
                connection.write(line)
            }
        }
        if s.dirty { schedule(s) }
    }

    /// One `update` (or `resync`) frame from `old` to `new`, if they differ.
    private func send(_ s: Subscription, on connection: Connection, old: LivePage?, new: LivePage, target: (String, JSONValue)) {
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
        connection.write(Self.line(o))
    }

    private static func line(_ o: JSONObject) -> [UInt8] {
        var out = JSONWriter.bytes(.object(o))
        out.append(0x0A)
        return out
    }

    /// `stats.subscriptions`.
    var json: JSONObject {
        ["open": .number(Double(subscriptions.count)), "runs": .number(Double(runs)), "updates": .number(Double(updatesSent))]
    }
}
