import Dispatch
import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The async, pipelined connection to fedsearchd: any number of requests in flight from any
/// tasks, each answered through its own ``Response`` stream.
///
/// The connection gives each request an id and routes the daemon's frames by it. One reader
/// thread per socket (a blocking `poll`/`recv`, so no task of the cooperative pool ever blocks
/// on the socket) decodes the frames and hands each to its request's stream. The socket is
/// opened on first use. When it breaks (the daemon stopped or restarted), every request in
/// flight ends with ``ClientError/disconnected(_:)`` and the connection tries again in the
/// background with ``Backoff``; requests made meanwhile fail at once with
/// ``ClientError/unavailable(_:)``, and ``states()`` says when it is back.
///
/// At most `maxSearchesInFlight` searches are sent ahead of their answers (the daemon's
/// `limits.maxRequestsPerConnection`, 16 by default, past which the daemon stops reading the
/// socket); further searches wait in order in the connection and are sent as earlier ones end,
/// so requests of other kinds (a `cancel`, a `ping`) are never held behind them in the socket.
public final class DaemonConnection: Sendable {
    /// The daemon's socket path.
    public let path: String
    /// The waits between attempts to reconnect.
    public let backoff: Backoff
    /// The most searches sent and not yet answered.
    public let maxSearchesInFlight: Int
    private let state = Mutex(State())
    /// Every request line is written from this queue, in the order it was queued (under the
    /// state's lock): a search before its cancel, and no reader or caller ever blocks on a
    /// socket that the daemon stopped reading.
    private let writer = DispatchQueue(label: "fedsearch-client-writer")

    private struct State {
        var link: DaemonLink?
        var routes: [String: RequestRoute] = [:]
        /// The ids of the searches sent and not yet ended.
        var searchesInFlight = Set<String>()
        /// Open subscriptions by id, and whether their first answer has ended (`done`).
        var subscriptions: [String: Bool] = [:]
        /// Searches waiting for room in flight, in order: their ids and lines.
        var waiting: [(id: String, line: [UInt8])] = []
        var nextID = 0
        var status: ConnectionState = .idle
        var watchers: [Int: AsyncStream<ConnectionState>.Continuation] = [:]
        var nextWatcher = 0
        /// The background reconnection, while one runs.
        var retry: Task<Void, Never>?
        var lastDelay: Duration?
        var lastFailure = ""
    }

    /// A connection to the daemon at `path`; nothing is opened until the first request.
    public init(path: String, backoff: Backoff = Backoff(), maxSearchesInFlight: Int = 16) {
        self.path = path
        self.backoff = backoff
        self.maxSearchesInFlight = max(1, maxSearchesInFlight)
    }

    deinit { close() }

    /// The link's state now.
    public var currentState: ConnectionState { state.withLock { $0.status } }

    /// The state now, then every change, until the connection is closed.
    public func states() -> AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self)
        let key = state.withLock { s -> Int? in
            continuation.yield(s.status)
            if s.status == .closed { return nil }
            s.nextWatcher += 1
            s.watchers[s.nextWatcher] = continuation
            return s.nextWatcher
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Opens the socket now if it is not open (otherwise the first request does).
    public func connect() throws(ClientError) {
        try state.withLock { (s: inout State) throws(ClientError) in _ = try openLink(&s) }
    }

    /// Sends `operation` under a fresh id and returns its answer.
    public func send(_ operation: Request.Operation) throws(ClientError) -> Response {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [Frame].self)
        let (id, link) = try register(operation) { _, _ in .stream(continuation) }
        continuation.onTermination = { [weak self] termination in
            // The consumer stopped listening before the answer ended: stop the work too.
            guard case .cancelled = termination else { return }
            self?.abandon(id, link: link)
        }
        return Response(id: id, batches: stream)
    }

    /// Sends `operation` under a fresh id and calls `handler` on the main actor with its
    /// frames, each batch that arrived together in one call, then with how it ended.
    ///
    /// This is the cheapest way to a main-actor consumer: each batch is one block queued on
    /// the main queue (the main actor's executor), where a task awaiting a ``Response`` there
    /// is scheduled twice. The main queue must run (an `async` `main`, or a run loop that
    /// serves it), and the handler must not block waiting for an answer on this connection.
    public func send(
        _ operation: Request.Operation, onMainActor handler: @escaping @MainActor @Sendable (ResponseEvent) -> Void
    ) throws(ClientError) -> RequestHandle {
        var handle: RequestHandle?
        _ = try register(operation) { id, link in
            let h = RequestHandle(id: id) { [weak self] in self?.abandon(id, link: link) }
            handle = h
            return .mainActor(MainActorRoute(handle: h, handler: handler))
        }
        return handle!
    }

    /// Gives the request a fresh id and its route, and writes its line (or queues it behind
    /// the searches in flight); the id and the link it went on.
    private func register(
        _ operation: Request.Operation, route: (_ id: String, DaemonLink) -> RequestRoute
    ) throws(ClientError) -> (String, DaemonLink) {
        // Facet value searches count against the daemon's per-connection limit as searches do.
        var isSearch = false
        var isSubscription = false
        switch operation {
        case .search, .searchForFacetValues: isSearch = true
        case .subscribe, .watch: isSubscription = true
        default: break
        }
        return try state.withLock { (s: inout State) throws(ClientError) -> (String, DaemonLink) in
            let link = try openLink(&s)
            s.nextID += 1
            let id = "c" + String(s.nextID)
            s.routes[id] = route(id, link)
            if isSubscription { s.subscriptions[id] = false }
            let line = Request(id: id, operation: operation).line()
            if isSearch, s.searchesInFlight.count >= maxSearchesInFlight {
                s.waiting.append((id, line))
            } else {
                if isSearch { s.searchesInFlight.insert(id) }
                enqueue([line], on: link)
            }
            return (id, link)
        }
    }

    /// The consumer of request `id` stopped listening before its answer ended: its route goes,
    /// and the daemon is asked to cancel it. A search sent keeps its place in flight until the
    /// daemon's `done` says it ended (the daemon counts it until then); one still waiting is
    /// just dropped.
    private func abandon(_ id: String, link: DaemonLink) {
        state.withLock { s in
            guard s.routes.removeValue(forKey: id) != nil else { return }
            s.waiting.removeAll { $0.id == id }
            // A subscription ends when its consumer stops listening.
            if s.subscriptions.removeValue(forKey: id) != nil, s.link === link {
                enqueue([Request(id: "\(id)-unsubscribe", operation: .unsubscribe(target: id)).line()], on: link)
            }
            if s.searchesInFlight.contains(id), s.link === link {
                enqueue([Request(id: "\(id)-cancel", operation: .cancel(target: id)).line()], on: link)
            }
        }
    }

    /// Writes request lines in order: on this thread while the socket takes them without
    /// blocking and nothing is queued before them, the rest through the writer queue (so no
    /// caller or reader ever blocks on a socket that the daemon stopped reading). Called under
    /// the state's lock, which orders every line. A failure ends the link.
    private func enqueue(_ lines: [[UInt8]], on link: DaemonLink) {
        var rest = lines[...]
        var offset = 0
        while let line = rest.first {
            switch link.writeNow(line) {
            case .written:
                rest.removeFirst()
                continue
            case .queue(let from):
                offset = from
            case .failed(let failure):
                let reason = "fedsearchd at \(path): send: \(failure)"
                // Ended off this thread: the caller holds the state's lock.
                writer.async { [weak self] in self?.linkFailed(link, reason: reason) }
                return
            }
            break
        }
        guard !rest.isEmpty else { return }
        link.queued.add(rest.count, ordering: .relaxed)
        let path = self.path
        let pending = Array(rest)
        let firstOffset = offset
        writer.async { [weak self] in
            for (i, line) in pending.enumerated() {
                if let failure = link.write(line, from: i == 0 ? firstOffset : 0) {
                    link.queued.subtract(pending.count - i - 1, ordering: .relaxed)
                    self?.linkFailed(link, reason: "fedsearchd at \(path): send: \(failure)")
                    return
                }
            }
        }
    }

    /// A search ended (its `done` or request-level error arrived): the waiting searches that
    /// now have room are queued for the writer, in order.
    private func ended(_ id: String, _ s: inout State, link: DaemonLink) {
        guard s.searchesInFlight.remove(id) != nil else { return }
        var lines: [[UInt8]] = []
        while s.searchesInFlight.count < maxSearchesInFlight, !s.waiting.isEmpty {
            let next = s.waiting.removeFirst()
            s.searchesInFlight.insert(next.id)
            lines.append(next.line)
        }
        enqueue(lines, on: link)
    }

    /// Sends a request and waits for every frame of its answer.
    public func roundTrip(_ operation: Request.Operation) async throws -> [Frame] {
        try await send(operation).collect()
    }

    /// Closes the connection: requests in flight end with ``ClientError/closed``, and no
    /// reconnection is tried.
    public func close() {
        let (link, routes, watchers, retry) = state.withLock { s in
            defer {
                s.link = nil
                s.routes = [:]
                s.subscriptions = [:]
                s.searchesInFlight = []
                s.waiting = []
                s.watchers = [:]
                s.retry = nil
                s.status = .closed
            }
            return (s.link, s.routes, s.watchers, s.retry)
        }
        retry?.cancel()
        link?.shutDown()
        for r in routes.values { r.fail(.closed) }
        for w in watchers.values {
            w.yield(.closed)
            w.finish()
        }
    }

    // MARK: - The link

    /// The open link, opening one if there is none and no reconnection is waiting.
    private func openLink(_ s: inout State) throws(ClientError) -> DaemonLink {
        if let link = s.link { return link }
        if s.status == .closed { throw ClientError.closed }
        if s.retry != nil {
            throw ClientError.unavailable("\(s.lastFailure); retrying in the background")
        }
        do {
            return try open(&s)
        } catch {
            scheduleRetry(&s, reason: error.description)
            throw ClientError.unavailable("\(error.description); start it with `make run`, or give its socket with --socket")
        }
    }

    /// Connects and starts the socket's reader thread.
    private func open(_ s: inout State) throws(UnixSocketTransport.Failure) -> DaemonLink {
        let fd = try UnixSocketTransport.connect(path: path)
        let link = DaemonLink(fd: fd)
        s.link = link
        set(&s, .connected)
        // The thread holds the connection weakly, so a connection dropped without close()
        // still goes away (its deinit shuts the socket, and the thread sees the end).
        let path = self.path
        let thread = Thread { [weak self] in
            var reader = SocketLineReader(fd: fd)
            let reason = Self.readFrames(&reader, path: path) { [weak self] frame in self?.route(frame, on: link) }
            self?.linkFailed(link, reason: reason)
            link.closeDescriptor()
        }
        thread.name = "fedsearch-read"  // Linux keeps at most 15 bytes of a thread name, or none
        thread.start()
        return link
    }

    /// Reads frames and hands them to `route` until the socket ends; returns why it ended.
    /// The frames that arrived together go as one batch, so their consumers are woken once for
    /// all of them: every whole line received by then, and those that came while they were
    /// decoded (an answer's frames are written together, and often take two reads).
    private static func readFrames(_ reader: inout SocketLineReader, path: String, route: ([Frame]) -> Void) -> String {
        var decoder = AnswerDecoder()
        while true {
            var frames: [Frame] = []
            // One look for more bytes per batch, so a stream that keeps coming (pipelined
            // searches) still goes out batch by batch.
            var lookedAgain = false
            do {
                guard var range = try reader.nextLine() else { return "fedsearchd at \(path) closed the connection" }
                while true {
                    do { frames.append(try decoder.decode(Array(reader.storage[range]))) } catch {
                        route(frames)  // the good frames before it still reach their requests
                        return "fedsearchd at \(path) sent a bad frame: \(error.message)"
                    }
                    if let next = reader.bufferedLine() {
                        range = next
                    } else if !lookedAgain, reader.receiveWaiting(), let next = reader.bufferedLine() {
                        lookedAgain = true
                        range = next
                    } else {
                        break
                    }
                }
            } catch {
                return "fedsearchd at \(path): \(error.description)"
            }
            route(frames)
        }
    }

    /// Hands frames to their requests' streams, each request's in one batch; the frame that
    /// ends a request ends its stream.
    private func route(_ frames: [Frame], on link: DaemonLink) {
        var deliveries: [(route: RequestRoute, frames: [Frame], ends: Bool)] = []
        state.withLock { s in
            // The back-off starts again from its first delay once the daemon answers (not at
            // connect: a daemon that is stopping accepts, refuses, and closes).
            s.lastDelay = nil
            var position: [String: Int] = [:]
            for frame in frames {
                guard let id = frame.id else { continue }
                let ends = Self.ends(frame, id: id, &s)
                // A search ends here even when its consumer stopped listening (it kept its
                // place in flight until the daemon's end).
                if ends { ended(id, &s, link: link) }
                // Frames of a request cancelled by its consumer, or a cancel's answer to
                // another request, are dropped.
                if let i = position[id] {
                    deliveries[i].frames.append(frame)
                } else {
                    guard let route = s.routes[id] else { continue }
                    position[id] = deliveries.count
                    deliveries.append((route, [frame], false))
                }
                if ends, let i = position[id] {
                    s.routes.removeValue(forKey: id)
                    deliveries[i].ends = true
                    position[id] = nil  // a later frame under the id belongs to no request
                }
            }
        }
        // Streams first: a main-actor handover waits while the main actor is busy.
        for d in deliveries where !d.route.isMainActor { d.route.deliver(d.frames, ends: d.ends) }
        for d in deliveries where d.route.isMainActor { d.route.deliver(d.frames, ends: d.ends) }
    }

    /// Whether `frame` ends request `id`'s answer. A subscription's does not end with its
    /// first answer's `done`: its updates follow, until its consumer stops listening (which
    /// unsubscribes) or the link breaks; only a refusal (an error before that `done`) ends it.
    private static func ends(_ frame: Frame, id: String, _ s: inout State) -> Bool {
        guard let answered = s.subscriptions[id] else { return frame.endsRequest }
        switch frame {
        case .done, .info(_, "watching", _):
            s.subscriptions[id] = true
            return false
        case .error(_, nil, _) where !answered:
            s.subscriptions[id] = nil
            return true
        default:
            return false
        }
    }

    /// The link broke: end what was in flight on it and start reconnecting.
    private func linkFailed(_ link: DaemonLink, reason: String) {
        let routes = state.withLock { s -> [RequestRoute] in
            guard s.link === link else { return [] }
            s.link = nil
            defer {
                s.routes = [:]
                s.subscriptions = [:]
                s.searchesInFlight = []
                s.waiting = []
            }
            scheduleRetry(&s, reason: reason)
            return Array(s.routes.values)
        }
        link.shutDown()
        for r in routes { r.fail(.disconnected(reason)) }
    }

    /// Starts the background reconnection (one at a time), with the next back-off delay.
    private func scheduleRetry(_ s: inout State, reason: String) {
        guard s.status != .closed, s.retry == nil else { return }
        let delay = backoff.next(after: s.lastDelay)
        s.lastDelay = delay
        s.lastFailure = reason
        set(
            &s,
            .disconnected(
                reason: reason,
                retryInMs: Int(delay.components.seconds * 1000)
                    + Int(delay.components.attoseconds / 1_000_000_000_000_000)))
        s.retry = Task.detached { [weak self] in
            try? await Task.sleep(for: delay)
            self?.retryNow()
        }
    }

    /// One reconnection attempt; another is scheduled if it fails.
    private func retryNow() {
        state.withLock { s in
            guard s.status != .closed else { return }
            s.retry = nil
            guard s.link == nil else { return }
            do throws(UnixSocketTransport.Failure) { _ = try open(&s) } catch {
                scheduleRetry(&s, reason: error.description)
            }
        }
    }

    private func set(_ s: inout State, _ status: ConnectionState) {
        s.status = status
        for w in s.watchers.values { w.yield(status) }
    }
}
