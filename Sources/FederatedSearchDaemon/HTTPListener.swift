#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchEventLoop
import FederatedSearchCore
import FederatedSearchHTTP
import FederatedSearchProtocol
import FederatedSearchServer

/// The HTTP listener: libevent's evhttp on the daemon's own loop (no second loop). Each request
/// is read here, answered by ``AlgoliaAPI`` in a task on the server core, and its output comes
/// back through the inbox addressed by exchange id; a request whose connection has gone is
/// still ended (libevent keeps it until then) but its task is cancelled. Loop thread only.
final class HTTPListener {
    private var http: EventHTTPServer!
    private unowned let loop: EventLoop
    /// Set by ``shutDown()``: libevent is freeing every connection, and the loop is stopping.
    private var tearingDown = false
    let api: AlgoliaAPI
    let address: HTTPConfig.Address

    /// A request being answered.
    private struct Exchange {
        let request: HTTPServerRequest
        let connection: HTTPServerConnection?
        var task: Task<Void, Never>?
        /// The client went away: output is dropped until the end, which frees the request.
        var gone = false
        /// A stream that fell too far behind its reader: the rest of it is dropped.
        var abandoned = false
        /// Its response is queued whole: the exchange ends when libevent has sent it.
        var ended = false
        /// Until its answer starts, an event on the connection's socket for the client closing
        /// it (libevent reads nothing from a connection while its request is answered).
        var closeWatch: LoopEvent?
        /// A live subscription's event stream (`POST /1/federated/subscribe`).
        var stream: SubscriptionStream?
    }
    private var exchanges: [UInt64: Exchange] = [:]
    /// Exchange ids by libevent request (for its completion callback).
    private var byRequest: [HTTPServerRequest: UInt64] = [:]
    /// Exchange ids by the socket their close watch is on.
    private var watched: [Int32: UInt64] = [:]
    private var nextExchange: UInt64 = 1
    /// A connection that has sent a request (its close callback is set).
    private struct Peer {
        /// Its exchanges running.
        var exchanges: Set<UInt64> = []
        /// The callbacks that count its output in the daemon's output budget and note the
        /// first byte of its next request.
        let watch: HTTPConnectionWatch
        /// The client's address.
        let address: String
        /// When it last sent a request or had one answered (idle ones close first).
        var lastActive = ContinuousClock.now
        /// When the first byte of a request not yet whole arrived (`limits.requestReadTimeoutMs`).
        var requestStarted: ContinuousClock.Instant?
    }
    private var connections: [HTTPServerConnection: Peer] = [:]
    /// A connection accepted that has not sent a whole request yet. evhttp gives no handle on
    /// a connection before its first request, so each is known by its socket: the descriptor,
    /// and the socket's inode, which tells it apart from a later connection that reuses the
    /// descriptor once evhttp has closed it.
    private struct Newcomer {
        let inode: UInt
        let address: String
        let accepted: ContinuousClock.Instant
    }
    private var newcomers: [Int32: Newcomer] = [:]
    /// Connections refused at accept, their answer sent and their sending side shut: their
    /// reading side is shut a second later (so the client reads the answer rather than a reset
    /// when its request arrives meanwhile), and evhttp frees them. Not counted in the limits.
    private var refused: [Int32: Newcomer] = [:]
    /// Responses being handed to evhttp in steps, by connection (one response at a time each).
    private var piecewise: [HTTPServerConnection: PiecewiseReply] = [:]
    private let placement: HTTPPlacement
    /// The largest body decoded on the loop thread; a larger one is decoded on the global executor.
    static let loopBodyBytes = 64 << 10

    /// Whether no request is being answered or its response still being sent (a drain waits
    /// for it).
    var isIdle: Bool { exchanges.isEmpty }
    /// Requests being answered, connections open (those that have sent no request yet
    /// included), and requests answered since start (for `stats.http`).
    var exchangeCount: Int { exchanges.count }
    var connectionCount: Int { connections.count + newcomers.count }
    private(set) var servedCount = 0

    init(loop: EventLoop, config: HTTPConfig, startedAt: String) throws {
        self.loop = loop
        self.address = config.listen
        let limits = loop.config.limits
        api = AlgoliaAPI(config: config, maxBodyBytes: loop.config.maxLineBytes, startedAt: startedAt)
        placement = HTTPPlacement(stats: loop.stats)
        // A body past the limit gets the API's 413 (Algolia's shape, with CORS); one past twice
        // the limit is refused by libevent itself before it is buffered whole (its own 413 page).
        http = try EventHTTPServer(
            on: loop.base, maxBodyBytes: 2 * Int(loop.config.maxLineBytes), maxHeaderBytes: 64 << 10,
            idleTimeoutSeconds: limits.idleTimeoutMs > 0 ? limits.idleTimeoutMs / 1000 : nil, delegate: self)
    }

    /// Frees the HTTP server (every connection, and the requests libevent still holds) when
    /// the loop has stopped, while the loop is still alive: its close callbacks run now.
    func shutDown() {
        tearingDown = true
        http.shutDown()
        newcomers = [:]
        refused = [:]
    }

    /// Listens on the configured address (a TCP host and port, or a Unix socket we create).
    func listen() throws {
        switch address {
        case .tcp(let host, let port): try http.bind(host: host, port: port)
        case .unix(let path): try accept(socket: UnixSocket.listen(path: path, mode: api.config.socketMode))
        }
    }

    /// Serves a listening socket made elsewhere (systemd's, or a Unix socket).
    func accept(socket fd: Int32) throws { try http.accept(socket: fd) }

    /// Stops accepting connections (a drain); requests of open ones are still answered.
    func stopAccepting() { http.stopAccepting() }

    func received(_ request: HTTPServerRequest) {
        // Activity, for the loop's polling (a request answered at once posts nothing to the inbox).
        loop.turns &+= 1
        let connection = request.connection
        if let connection, connections[connection] == nil {
            // Counted since its accept; one that was not (no descriptor seen then) is counted now.
            let fd = connection.descriptor
            if let r = refused.removeValue(forKey: fd) {
                let refusal = HTTPResponse.error(503, "too many connections from \(r.address)", code: .tooManyConnections)
                return reply(request, refusal, close: true)
            }
            let newcomer = newcomers.removeValue(forKey: fd)
            let address = newcomer?.address ?? connection.peerAddress
            if newcomer == nil, let refusal = makeRoom(for: address) {
                return reply(request, HTTPResponse.error(503, refusal.message, code: refusal.code), close: true)
            }
            // Its unsent output counts toward limits.maxTotalPendingOutputBytes, as a socket's does.
            let watch = http.watch(connection)
            // What libevent queued before (a `100 Continue`) is counted as it drains.
            outputChanged(by: watch.outputLength)
            connections[connection] = Peer(watch: watch, address: address)
        }
        if let connection { connections[connection]?.requestStarted = nil }
        // While clients leave that much output unread, no new work starts (the socket's
        // searches wait in their queue; an HTTP client is asked to come back).
        if loop.outputOverBudget {
            var busy = HTTPResponse.error(
                503, "clients have more answers unread than limits.maxTotalPendingOutputBytes; retry shortly",
                code: .outputBacklog)
            busy.headers.append(("Retry-After", "1"))
            return reply(request, busy, close: false)
        }
        // Headers libevent accepts that a proxy in front may read otherwise: refused, and the
        // connection closed, so what follows cannot be read as a request of its own.
        if let problem = HTTPFraming.ambiguity(headers: request.headerFields, version: request.version) {
            return reply(request, HTTPResponse.error(400, problem, code: .invalidRequest), close: true)
        }
        guard let parsed = Self.read(request) else {
            return reply(request, HTTPResponse.error(405, "method not allowed", code: .methodNotAllowed), close: false)
        }
        let id = nextExchange
        nextExchange += 1
        exchanges[id] = Exchange(request: request, connection: connection)
        byRequest[request] = id
        if let connection {
            connections[connection]?.exchanges.insert(id)
            connections[connection]?.lastActive = .now
        }
        request.notifyWhenSent(to: http)
        let core = loop.core(answerByteLimit: loop.config.limits.maxAnswerBytes)
        // Alone on the daemon, a small request whose searches are quick is answered at once,
        // with no task (as the socket's `direct` placement): its client waits for nothing else.
        let small = parsed.body.count <= Self.loopBodyBytes
        if small, exchanges.count == 1, loop.searches.running == 0 {
            let stats = loop.stats
            if let response = api.respondNow(parsed, core: core, quick: { QueryPlacement.areQuick($0, stats: stats) }) {
                return deliver(id, .whole(response))
            }
        }
        if case .federatedSubscribe = AlgoliaRoute.match(parsed.method, parsed.path) {
            return subscribe(id, parsed, core: core)
        }
        let api = self.api
        let inbox = loop.inbox!
        // A small request starts on the loop thread (its searches may stay there, see
        // HTTPPlacement); a large body is decoded off it.
        let executor: (any TaskExecutor)? = small ? loop.executor : nil
        let placement = placement.forExchange(startedOnLoop: executor != nil)
        exchanges[id]?.task = Task(executorPreference: executor) {
            await api.respond(parsed, core: core, placement: placement, executor: executor) { output in
                inbox.post(.http(exchange: id, output))
            }
        }
        watchForClose(id, connection)
    }

    /// `POST /1/federated/subscribe`: refused with its status, or a live subscription whose
    /// frames go out as server-sent events until the client goes.
    private func subscribe(_ id: UInt64, _ request: HTTPRequest, core: ServerCore) {
        switch api.subscription(request, core: core) {
        case .failure(let response):
            deliver(id, .whole(response))
        case .success(let subscription):
            let sink = SubscriptionStream(
                listener: self, exchange: id, head: subscription.head, token: subscription.resume?.token ?? Self.newResumeToken())
            if let refusal = loop.live.subscribe(
                sink, id: subscription.id, request: subscription.search, minIntervalMs: subscription.minIntervalMs,
                resume: subscription.resume)
            {
                // Refused as /1/federated refuses: its status and Algolia's error shape.
                var response = HTTPResponse.error(refusal)
                response.headers += subscription.head.headers.filter { $0.name.lowercased().hasPrefix("access-control") }
                return deliver(id, .whole(response))
            }
            exchanges[id]?.stream = sink
            // The head at once: a resumed subscription with nothing new sends no frame.
            sink.open()
            watchForClose(id, exchanges[id]?.connection)
        }
    }

    /// Watches the exchange's socket for the client closing it: readable or closed (an RST
    /// shows as readable, with an error, never as EV_CLOSED), then a peek tells which. The
    /// peer's FIN (also from a client that only shut its sending side, which HTTP clients do
    /// not do while they wait for an answer) or an error cancels the task; the answer still
    /// goes to libevent, whose write fails and frees the connection. Bytes (a pipelined
    /// request) only end the watch.
    private func watchForClose(_ id: UInt64, _ connection: HTTPServerConnection?) {
        guard let fd = connection?.descriptor, fd >= 0, watched[fd] == nil,
            let watch = LoopEvent(on: loop.base, .readableOrClosed(socket: fd), { [unowned self] in peerClosed(fd) })
        else { return }
        watch.schedule()
        watched[fd] = id
        exchanges[id]?.closeWatch = watch
    }

    private func stopWatching(_ id: UInt64) {
        guard let watch = exchanges[id]?.closeWatch else { return }
        watched[watch.descriptor] = nil
        exchanges[id]?.closeWatch = nil
    }

    /// The socket of an exchange still being answered is readable or closed.
    private func peerClosed(_ fd: Int32) {
        guard let id = watched[fd] else { return }
        stopWatching(id)
        var byte: UInt8 = 0
        let closed: Bool
        do { closed = try systemCall { recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) } == 0 } catch { closed = !error.wouldBlock }
        if closed {
            exchanges[id]?.task?.cancel()
            endStream(id)
        }
    }

    /// The method, target, headers and body of a request, copied out of libevent's buffers.
    private static func read(_ request: HTTPServerRequest) -> HTTPRequest? {
        guard let method = request.method.flatMap(HTTPRequest.Method.init(rawValue:)) else { return nil }
        let target = request.target
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        // Only the headers the API reads (looked up case-insensitively by libevent).
        var headers: [String: String] = [:]
        for name in HTTPRequest.headersRead {
            if let v = request.header(name) { headers[name] = v }
        }
        return HTTPRequest(
            method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
            headers: headers, body: request.takeBody(), clientAddress: request.connection?.peerAddress)
    }

    /// Output of an exchange's task, on the loop thread.
    func deliver(_ id: UInt64, _ output: HTTPOutput) {
        guard let x = exchanges[id] else { return }
        // Once the answer starts, libevent notices a client that leaves (its write fails); a
        // subscription's stream may write nothing for long, so it keeps watching.
        if x.closeWatch != nil, x.stream == nil { stopWatching(id) }
        switch output {
        case .whole(let response):
            reply(x.request, response, close: false)
            ended(id, x)
        case .head(let response):
            // libevent's reply start needs the connection (a gone one is ended by `.end`).
            guard !x.gone else { return }
            addHeaders(response, to: x.request)
            x.request.startReply(status: response.status)
        case .chunk(let bytes):
            guard !x.gone, !x.abandoned else { return }
            if let connection = x.connection, connection.unsentBytes > loop.config.limits.maxPendingOutputBytes {
                // The reader is this far behind: the rest of the stream is not kept for it, and
                // its last event says so (a stream that just ended would look complete).
                exchanges[id]?.abandoned = true
                x.task?.cancel()
                let error = Frame.error(
                    id: nil, index: nil,
                    error: SearchError(
                        .outputBacklog,
                        "the stream was cut: more than \(loop.config.limits.maxPendingOutputBytes) bytes of it were left unread"))
                x.request.sendChunk(AlgoliaAPI.event(error.line()))
                return
            }
            x.request.sendChunk(bytes)
        case .end:
            x.request.endReply()
            ended(id, x)
        }
    }

    /// The response is handed to libevent: the exchange ends once it is sent, or at once if
    /// the connection has gone (libevent then frees the request without sending).
    private func ended(_ id: UInt64, _ x: Exchange) {
        if x.gone { finish(id) } else { exchanges[id]?.ended = true }
    }

    private func addHeaders(_ response: HTTPResponse, to request: HTTPServerRequest) {
        for h in response.headers { request.addHeader(h.name, h.value) }
    }

    /// Sends a whole response (libevent sets Content-Length and frees the request after). A
    /// large body is handed over in steps as the client reads (``PiecewiseReply``).
    private func reply(_ request: HTTPServerRequest, _ response: HTTPResponse, close: Bool) {
        addHeaders(response, to: request)
        if close { request.addHeader("Connection", "close") }
        if let body = response.largeBody, let connection = request.connection {
            request.addHeader("Content-Length", String(body.count))
            request.startReply(status: response.status)
            piecewise[connection] = PiecewiseReply(request: request, body: body)
            loop.streamedOutputChanged(by: body.count)
            return sendNextStep(connection)
        }
        request.reply(status: response.status, body: response.body)
    }

    /// Hands the next step of a piecewise response to evhttp; after the last, ends it.
    private func sendNextStep(_ connection: HTTPServerConnection) {
        guard var reply = piecewise[connection], let chunk = ChunkBuffer() else { return }
        let copied = reply.copy(into: chunk, maxBytes: loop.config.limits.maxPendingOutputBytes)
        // The bytes now count as libevent's (its output callback adds them).
        loop.streamedOutputChanged(by: -copied)
        if reply.isDone {
            piecewise[connection] = nil
            reply.request.send(chunk, notifying: nil)
            reply.request.endReply()
        } else {
            piecewise[connection] = reply
            reply.request.send(chunk, notifying: http)
        }
    }

    private func finish(_ id: UInt64) {
        stopWatching(id)
        guard let x = exchanges.removeValue(forKey: id) else { return }
        servedCount += 1
        byRequest[x.request] = nil
        if let c = x.connection, connections[c] != nil {
            connections[c]?.exchanges.remove(id)
            connections[c]?.lastActive = .now
            // Bytes of a pipelined request read meanwhile start its clock now.
            if c.unreadBytes > 0 { connections[c]?.requestStarted = .now }
        }
        if !tearingDown, loop.draining { loop.finishDrainIfIdle() }
    }

    /// Room for one more connection from `address`: at `maxConnectionsPerAddress` from it, or
    /// at `maxConnections` in all (connections that have not sent a request included), the
    /// oldest idle connection (of that address, or of any) is closed, as nginx closes idle
    /// keep-alive connections first; the refusal if none is idle (or the daemon is draining).
    private func makeRoom(for address: String) -> SearchError? {
        if loop.draining { return SearchError(.shuttingDown, "the daemon is shutting down") }
        let limits = loop.config.limits
        func fromAddress() -> Int {
            connections.values.lazy.filter { $0.address == address }.count + newcomers.values.lazy.filter { $0.address == address }.count
        }
        if fromAddress() >= limits.maxConnectionsPerAddress {
            forgetClosedNewcomers()
            if fromAddress() >= limits.maxConnectionsPerAddress, !closeOldestIdle(from: address) {
                return SearchError(.tooManyConnections, "too many connections from \(address) (limits.maxConnectionsPerAddress)")
            }
        }
        if connections.count + newcomers.count >= limits.maxConnections {
            forgetClosedNewcomers()
            if connections.count + newcomers.count >= limits.maxConnections, !closeOldestIdle(from: nil) {
                return SearchError(.tooManyConnections, "too many connections (limits.maxConnections)")
            }
        }
        return nil
    }

    /// Closes the connection idle longest (nothing running, no response going out; or
    /// accepted and silent since) from `address` (nil: any); whether there was one.
    private func closeOldestIdle(from address: String?) -> Bool {
        let idle = connections.filter { c, peer in
            peer.exchanges.isEmpty && piecewise[c] == nil && (address == nil || peer.address == address)
        }.min { $0.value.lastActive < $1.value.lastActive }
        let silent = newcomers.filter { address == nil || $0.value.address == address }.min { $0.value.accepted < $1.value.accepted }
        if let idle, silent.map({ idle.value.lastActive <= $0.value.accepted }) ?? true {
            // libevent calls the close callback (`closed`), which forgets it.
            idle.key.free()
        } else if let silent {
            dismissNewcomer(silent.key)
        } else {
            return false
        }
        return true
    }

    /// Counts a connection just accepted toward its address's and the daemon's limits; one
    /// past them (when none idle can be closed for it) is refused at once, its descriptor
    /// given back rather than held until it sends a request.
    private func admit(socket fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let address = HTTPFraming.peerAddress(socket: fd)
        // The descriptor may have been a refused connection's, closed since.
        refused[fd] = nil
        if let refusal = makeRoom(for: address) {
            HTTPFraming.refuse(socket: fd, HTTPResponse.error(503, refusal.message, code: refusal.code))
            refused[fd] = Newcomer(inode: UInt(info.st_ino), address: address, accepted: .now)
            return
        }
        newcomers[fd] = Newcomer(inode: UInt(info.st_ino), address: address, accepted: .now)
    }

    /// Whether the newcomer on `fd` is still that connection (evhttp has not closed its socket).
    private func isOpen(_ fd: Int32, _ newcomer: Newcomer) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && UInt(info.st_ino) == newcomer.inode
    }

    /// Forgets newcomers whose connections evhttp has closed (the client left, or its timer fired).
    private func forgetClosedNewcomers() {
        for (fd, newcomer) in newcomers where !isOpen(fd, newcomer) { newcomers[fd] = nil }
    }

    /// Closes a connection that has sent no request: both directions of its socket are shut,
    /// so evhttp reads its end and frees it.
    private func dismissNewcomer(_ fd: Int32) {
        guard let newcomer = newcomers.removeValue(forKey: fd), isOpen(fd, newcomer) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// A byte arrived on a connection: the first of a request starts its clock.
    private func inputArrived(on c: HTTPServerConnection) {
        guard connections[c]?.requestStarted == nil, connections[c]?.exchanges.isEmpty == true else { return }
        connections[c]?.requestStarted = .now
    }

    /// Closes the connections whose request has not arrived whole within
    /// `limits.requestReadTimeoutMs` of its first byte (of the connection's opening, for one
    /// that has sent none); the loop calls it every second.
    func closeSlowRequests(now: ContinuousClock.Instant) {
        for (fd, r) in refused where now - r.accepted >= .seconds(1) {
            refused[fd] = nil
            if isOpen(fd, r) { shutdown(fd, Int32(SHUT_RD)) }
        }
        let ms = loop.config.limits.requestReadTimeoutMs
        guard ms > 0 else { return }
        let cutoff = now - .milliseconds(ms)
        for (fd, newcomer) in newcomers where newcomer.accepted < cutoff {
            Log.debug("closing an HTTP connection from \(newcomer.address): no whole request within \(ms) ms (limits.requestReadTimeoutMs)")
            dismissNewcomer(fd)
        }
        for (c, peer) in connections where peer.exchanges.isEmpty && (peer.requestStarted.map { $0 < cutoff } ?? false) {
            Log.debug(
                "closing an HTTP connection from \(peer.address): its request was not whole within \(ms) ms (limits.requestReadTimeoutMs)")
            c.free()
        }
    }

    /// Bytes added to or taken from a connection's output buffer.
    private func outputChanged(by delta: Int) {
        if !tearingDown { loop.outputChanged(by: delta) }
    }

    /// libevent is freeing a connection: its running exchanges are cancelled (and ended when
    /// their tasks stop).
    private func closed(_ connection: HTTPServerConnection) {
        // A response handed over in steps goes with the connection. Cut short by the client,
        // its request is detached from the connection (libevent frees an attached one, as at
        // shutdown): ending it frees it.
        if let reply = piecewise.removeValue(forKey: connection) {
            loop.streamedOutputChanged(by: -reply.remaining)
            if reply.request.connection == nil { reply.request.endReply() }
        }
        guard let peer = connections.removeValue(forKey: connection) else { return }
        // What the connection still held leaves the budget with it.
        outputChanged(by: -http.unwatch(peer.watch))
        for id in peer.exchanges {
            // libevent closes the socket after this callback: no watch may outlive it.
            stopWatching(id)
            // A response queued whole goes with the connection (libevent frees its request).
            if exchanges[id]?.ended == true {
                finish(id)
                continue
            }
            exchanges[id]?.gone = true
            exchanges[id]?.task?.cancel()
            endStream(id)
        }
    }

    /// Ends every subscription's stream (the daemon is draining: they would never end).
    func endSubscriptionStreams() {
        for (id, x) in exchanges where x.stream != nil { endStream(id) }
    }

    /// A subscription's stream ended (its client went, or fell too far behind): its
    /// subscription goes, and the exchange ends.
    private func endStream(_ id: UInt64) {
        guard let stream = exchanges[id]?.stream else { return }
        exchanges[id]?.stream = nil
        loop.live.connectionClosed(stream.sinkID)
        deliver(id, .end)
    }

    /// A token naming a new subscription stream: 16 random hexadecimal digits.
    static func newResumeToken() -> String {
        let n = UInt64.random(in: 0...UInt64.max)
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A live subscription's frames as server-sent events on one exchange. The head goes with
    /// the first frame; the first answer's `done` event has the id `TOKEN.0`, and each
    /// `update` or `resync` event `TOKEN.SEQ`: a reconnecting browser sends the last as
    /// `Last-Event-ID`, and the subscription resumes (``LiveSubscriptions``).
    final class SubscriptionStream: LiveSink {
        private unowned let listener: HTTPListener
        let exchange: UInt64
        private var head: HTTPResponse?
        let peerIdentity: PeerIdentity?
        let resumeToken: String?

        init(listener: HTTPListener, exchange: UInt64, head: HTTPResponse, token: String) {
            self.listener = listener
            self.exchange = exchange
            self.head = head
            peerIdentity = AlgoliaAPI.transportPeer
            resumeToken = token
        }

        var sinkID: UInt64 { 1 << 63 | exchange }
        var answerByteLimit: Int { listener.loop.config.limits.maxAnswerBytes }

        var isClosing: Bool {
            guard let x = listener.exchanges[exchange] else { return true }
            return x.gone || x.abandoned || x.stream !== self
        }

        /// Half the connection's output limit: past the limit, the stream would be cut.
        var hasBacklog: Bool {
            guard let c = listener.exchanges[exchange]?.connection else { return false }
            return c.unsentBytes > listener.loop.config.limits.maxPendingOutputBytes / 2
        }

        func send(_ line: [UInt8]) {
            if let head {
                self.head = nil
                listener.deliver(exchange, .head(head))
            }
            var event: [UInt8] = []
            let frame = (try? JSONParser.parse(line))?.objectValue
            if let seq = frame?["seq"]?.intValue ?? (frame?["type"] == "done" ? 0 : nil), let token = resumeToken {
                event = Array("id: \(token).\(seq)\n".utf8)
            }
            listener.deliver(exchange, .chunk(event + AlgoliaAPI.event(line)))
            if listener.exchanges[exchange]?.abandoned == true { listener.endStream(exchange) }
        }

        /// Sends the head now, with an event-stream comment (clients ignore it).
        func open() {
            guard let head else { return }
            self.head = nil
            listener.deliver(exchange, .head(head))
            listener.deliver(exchange, .chunk(Array(": live\n\n".utf8)))
        }

        func firstAnswerStarted() {}
        func firstAnswerArrived() {}
    }
}

/// evhttp's events, on the loop thread.
extension HTTPListener: EventHTTPServerDelegate {
    func httpAccepted(socket: Int32) { admit(socket: socket) }
    func httpReceived(_ request: HTTPServerRequest) { received(request) }
    func httpSent(_ request: HTTPServerRequest) { if let id = byRequest[request] { finish(id) } }
    func httpStepWritten(on connection: HTTPServerConnection) { sendNextStep(connection) }
    func httpConnectionClosed(_ connection: HTTPServerConnection) { closed(connection) }
    func httpOutputChanged(by delta: Int) { outputChanged(by: delta) }
    func httpInputArrived(on connection: HTTPServerConnection) { inputArrived(on: connection) }
}
