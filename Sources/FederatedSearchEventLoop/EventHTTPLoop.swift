#if canImport(Glibc)
import Glibc
#endif
internal import CLibevent
import FederatedSearchCore
import Foundation
import Synchronization

/// One HTTP/1.1 exchange for ``EventHTTPLoop``: plain `http://` only.
public struct EventHTTPExchange: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`, `PATCH` or `HEAD`.
    public var method: String
    public var host: String
    public var port: UInt16
    /// The request target: the path with its query string.
    public var target: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// The exchange's whole time, from when the loop takes it (waiting for a connection,
    /// connecting, writing and reading), before it is cancelled and fails as timed out.
    public var timeout: Duration
    /// The connections it may use: those of its client (each client keeps its own).
    public var pool: UInt64
    /// At most this many connections in that pool to this host and port.
    public var maxConnections: Int

    public init(
        method: String, host: String, port: UInt16, target: String, headers: [(String, String)], body: [UInt8]?,
        timeout: Duration, pool: UInt64, maxConnections: Int
    ) {
        self.method = method
        self.host = host
        self.port = port
        self.target = target
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.pool = pool
        self.maxConnections = maxConnections
    }
}

/// Why an exchange got no answer.
public enum EventHTTPFailure: Error, Sendable, Equatable {
    /// Connecting, writing or reading took longer than the exchange's timeout.
    case timedOut
    /// The connection could not be made, or closed before the answer (the `errno` text).
    case connectionFailed(String)
    /// The answer was not HTTP.
    case badResponse
}

/// The cancellation of one exchange, shared by the task that waits for it and the loop.
private final class EventHTTPToken: Sendable {
    let id: UInt64
    private let cancelled = Atomic<Bool>(false)

    init(id: UInt64) { self.id = id }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    func cancel() { cancelled.store(true, ordering: .releasing) }
}

/// A libevent loop for outgoing HTTP/1.1, on a thread of its own or on the daemon's loop (evhttp's client): keep-alive
/// connections pooled per client and host (freed when the client goes), host names resolved
/// by evdns without blocking, each exchange timed by a timer of its own, requests handed over
/// through a ``LoopInbox`` (as the daemon's loop gets its work), answers handed back by
/// resuming the waiting task's continuation.
///
/// `@unchecked Sendable` is safe here: from other threads only `inbox` (itself thread-safe)
/// and `nextID` (atomic) are touched; everything else (`pending`, `pools`, the evhttp
/// objects) is touched only on the loop's thread, from the callbacks `event_base_loop` runs
/// there, whichever thread runs the base (its own, or the daemon's loop thread after
/// ``install(on:)``). The loop is never freed (one per process).
public final class EventHTTPLoop: @unchecked Sendable {
    /// The process's loop: the one ``install(on:)`` made on the caller's own loop, else one on
    /// a thread of its own, made on first use; nil if libevent could not make one (the
    /// URLSession path serves then).
    public static var shared: EventHTTPLoop? { installed.withLock { $0 } ?? ownThread }
    private static let installed = Mutex<EventHTTPLoop?>(nil)
    private static let ownThread: EventHTTPLoop? = EventHTTPLoop(base: nil)

    /// Makes outgoing HTTP run on `base`, whose thread (the caller's loop) then runs every
    /// exchange's callbacks: a task waiting there for an answer is resumed with no hand-off
    /// between threads. Call it before anything sends a request; false if libevent could not
    /// set it up (the loop on its own thread serves then).
    @discardableResult
    public static func install(on base: EventBase) -> Bool {
        guard let loop = EventHTTPLoop(base: base) else { return false }
        installed.withLock { $0 = loop }
        return true
    }

    private enum Command: Sendable {
        case send(EventHTTPToken, EventHTTPExchange, CheckedContinuation<(body: [UInt8], status: Int), any Error>)
        case cancel(UInt64)
        case closePool(UInt64)
    }

    /// How long a connection may sit silent with an exchange on it before libevent resets
    /// it: a backstop only (each exchange has a timer of its own), and long enough that an
    /// idle keep-alive connection is not dropped between searches.
    private static let connectionTimeout = timeval(tv_sec: 300, tv_usec: 0)

    /// A connection of a pool, and how many of its exchanges are unanswered.
    private final class PooledConnection {
        let connection: OpaquePointer
        var inFlight = 0
        /// Exchanges answered on it: a failure of the next one before any answer may be the
        /// server closing the idle connection as the request went out.
        var answered = 0
        init(_ connection: OpaquePointer) { self.connection = connection }
    }

    /// An exchange sent and not yet answered.
    private final class Pending {
        let id: UInt64
        let continuation: CheckedContinuation<(body: [UInt8], status: Int), any Error>
        let owner: PooledConnection
        let loop: EventHTTPLoop
        let token: EventHTTPToken
        let exchange: EventHTTPExchange
        /// Sent again once already, on a new connection.
        var retried = false
        /// The evhttp request, once made (freed by libevent when the exchange ends).
        var request: OpaquePointer?
        /// The exchange's own timer (freed when it ends).
        var timer: OpaquePointer?
        var failure: EventHTTPFailure?

        init(
            token: EventHTTPToken, exchange: EventHTTPExchange, continuation: CheckedContinuation<(body: [UInt8], status: Int), any Error>,
            owner: PooledConnection, loop: EventHTTPLoop
        ) {
            id = token.id
            self.token = token
            self.exchange = exchange
            self.continuation = continuation
            self.owner = owner
            self.loop = loop
        }
    }

    private struct PoolKey: Hashable {
        var pool: UInt64
        var host: String
        var port: UInt16
    }

    private let loop: EventBase
    private var base: OpaquePointer { loop.pointer }
    /// Resolves host names without blocking the loop (nil: libevent then resolves blocking).
    private var dns: OpaquePointer?
    private var inbox: LoopInbox<Command>!
    private let nextID = Atomic<UInt64>(1)
    private var pending: [UInt64: Pending] = [:]
    private var pools: [PoolKey: [PooledConnection]] = [:]

    /// A loop on `base` (run by its owner), or on a base of its own with a thread to run it.
    private init?(base shared: EventBase?) {
        guard let loop = shared ?? (try? EventBase()) else { return nil }
        self.loop = loop
        guard let inbox = try? LoopInbox<Command>(on: loop, onWake: { [unowned self] in drain() }) else { return nil }
        self.inbox = inbox
        dns = evdns_base_new(loop.pointer, EVDNS_BASE_INITIALIZE_NAMESERVERS)
        guard shared == nil else { return }
        let thread = Thread { [self] in self.loop.runForever() }
        thread.name = "fedsearch-httpc"  // Linux keeps at most 15 bytes of a thread name, or none
        thread.start()
    }

    /// A new exchange's token.
    private func token() -> EventHTTPToken { EventHTTPToken(id: nextID.add(1, ordering: .relaxed).oldValue) }

    /// Sends the exchange and waits for its answer: the body and the status. Cancelling the
    /// calling task cancels the exchange (its connection is closed if it was under way).
    public func perform(_ exchange: EventHTTPExchange) async throws -> (body: [UInt8], status: Int) {
        let token = token()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                post(.send(token, exchange, continuation))
            }
        } onCancel: {
            token.cancel()
            post(.cancel(token.id))
        }
    }

    private func post(_ command: Command) { inbox.post(command) }

    // MARK: - On the loop's thread

    private func drain() {
        inbox.drain { c in
            switch c {
            case .send(let token, let exchange, let continuation): send(token, exchange, continuation)
            case .cancel(let id): cancel(id)
            case .closePool(let pool): closePool(pool)
            }
        }
    }

    private func send(
        _ token: EventHTTPToken, _ exchange: EventHTTPExchange,
        _ continuation: CheckedContinuation<(body: [UInt8], status: Int), any Error>, retried: Bool = false,
        on preferred: PooledConnection? = nil
    ) {
        // Cancelled before it reached the loop: the cancel command came first, or is behind.
        if token.isCancelled { return continuation.resume(throwing: CancellationError()) }
        guard let method = Self.command(exchange.method) else {
            return continuation.resume(throwing: EventHTTPFailure.badResponse)
        }
        guard let owner = preferred ?? connection(for: exchange) else {
            return continuation.resume(throwing: EventHTTPFailure.connectionFailed("cannot make a connection"))
        }
        // The callbacks' context is the Pending object, kept alive by `pending` until the
        // exchange is answered, failed or cancelled; libevent calls neither callback after that.
        let p = Pending(token: token, exchange: exchange, continuation: continuation, owner: owner, loop: self)
        p.retried = retried
        let context = Unmanaged.passUnretained(p).toOpaque()
        guard
            let request = evhttp_request_new(
                { request, context in
                    let p = Unmanaged<Pending>.fromOpaque(context!).takeUnretainedValue()
                    p.loop.finish(p, request)
                }, context)
        else {
            return continuation.resume(throwing: EventHTTPFailure.connectionFailed("cannot make a request"))
        }
        p.request = request
        evhttp_request_set_error_cb(request) { error, context in
            Unmanaged<Pending>.fromOpaque(context!).takeUnretainedValue().failure = EventHTTPLoop.failure(error, errno: errno)
        }
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Host", exchange.port == 80 ? exchange.host : "\(exchange.host):\(exchange.port)")
        for (name, value) in exchange.headers { evhttp_add_header(headers, name, value) }
        if let body = exchange.body {
            evhttp_add_header(headers, "Content-Length", String(body.count))
            _ = body.withUnsafeBytes { evbuffer_add(evhttp_request_get_output_buffer(request), $0.baseAddress, $0.count) }
        }
        // The exchange's whole time, from now (waiting behind others on the connection too),
        // connecting included.
        let c = exchange.timeout.components
        var tv = timeval(tv_sec: Int(c.seconds), tv_usec: Int(c.attoseconds / 1_000_000_000_000))
        p.timer = event_new(
            base, -1, 0,
            { _, _, context in
                let p = Unmanaged<Pending>.fromOpaque(context!).takeUnretainedValue()
                p.loop.expire(p)
            }, context)
        if let timer = p.timer { event_add(timer, &tv) }
        pending[token.id] = p
        owner.inFlight += 1
        // It may have failed the exchange through the callbacks already (a connection refused
        // at once), so only an exchange still pending is failed here.
        if evhttp_make_request(owner.connection, request, method, exchange.target) != 0 {
            if pending[token.id] != nil {
                forget(p)
                continuation.resume(throwing: p.failure ?? EventHTTPFailure.connectionFailed("cannot send the request"))
            }
            return
        }
        Self.sendAtOnce(owner.connection)
    }

    /// Turns Nagle's algorithm off on the connection's socket (made by the request just sent
    /// when the connection was new or had been reset): a request written in two segments
    /// would otherwise wait for the server's delayed acknowledgment of the first.
    private static func sendAtOnce(_ connection: OpaquePointer) {
        let fd = bufferevent_getfd(evhttp_connection_get_bufferevent(connection))
        guard fd >= 0 else { return }
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// The request callback: `request` is nil when the exchange failed (the error callback
    /// told why, just before).
    private func finish(_ p: Pending, _ request: OpaquePointer?) {
        // A failed connect reaches here with no error callback; errno may still say why.
        let code = errno
        guard pending[p.id] != nil else { return }
        let wasReused = p.owner.answered > 0
        forget(p)
        guard let request, case let status = Int(evhttp_request_get_response_code(request)), status > 0 else {
            p.owner.answered = 0
            if wasReused, !p.retried, p.failure != .timedOut {
                // The server may have closed the kept-alive connection as the request went
                // out: as libcurl does, the request is sent once more, on that connection,
                // which libevent has reset and connects anew.
                return send(p.token, p.exchange, p.continuation, retried: true, on: p.owner)
            }
            let why =
                [ECONNREFUSED, ECONNRESET, EHOSTUNREACH, ENETUNREACH, ETIMEDOUT, EPIPE].contains(code)
                ? Errno(code).description : "could not connect, or the connection closed before the answer"
            return p.continuation.resume(throwing: p.failure ?? EventHTTPFailure.connectionFailed(why))
        }
        p.owner.answered += 1
        let input = evhttp_request_get_input_buffer(request)
        let count = evbuffer_get_length(input)
        var body = [UInt8](repeating: 0, count: count)
        if count > 0 { _ = body.withUnsafeMutableBytes { evbuffer_remove(input, $0.baseAddress, count) } }
        p.continuation.resume(returning: (body, status))
    }

    /// The exchange's timer fired before its answer: it is cancelled (its connection reset
    /// if it was under way) and fails as timed out.
    private func expire(_ p: Pending) {
        guard pending[p.id] != nil else { return }
        if let request = p.request { evhttp_cancel_request(request) }
        forget(p)
        p.continuation.resume(throwing: EventHTTPFailure.timedOut)
    }

    /// A client is gone: its idle connections are freed now, busy ones once their exchanges end.
    private func closePool(_ pool: UInt64) {
        for key in pools.keys where key.pool == pool {
            for c in pools[key] ?? [] {
                if c.inFlight == 0 { evhttp_connection_free(c.connection) } else { evhttp_connection_free_on_completion(c.connection) }
            }
            pools[key] = nil
        }
    }

    /// Stops counting the pool's connections in for a client that is going away.
    public func close(pool: UInt64) { post(.closePool(pool)) }

    private func cancel(_ id: UInt64) {
        guard let p = pending[id] else { return }
        // While it is still known: libevent may call the error callback from inside.
        if let request = p.request { evhttp_cancel_request(request) }
        forget(p)
        p.continuation.resume(throwing: CancellationError())
    }

    private func forget(_ p: Pending) {
        pending[p.id] = nil
        p.owner.inFlight -= 1
        if let timer = p.timer {
            // Safe inside the timer's own callback: libevent no longer refers to the event then.
            event_free(timer)
            p.timer = nil
        }
    }

    /// The pool's least busy connection to the host; a new one while all are busy and the
    /// pool has room.
    private func connection(for exchange: EventHTTPExchange) -> PooledConnection? {
        let key = PoolKey(pool: exchange.pool, host: exchange.host, port: exchange.port)
        var list = pools[key] ?? []
        if let idle = list.min(by: { $0.inFlight < $1.inFlight }), idle.inFlight == 0 || list.count >= exchange.maxConnections {
            return idle
        }
        guard let made = evhttp_connection_base_new(base, dns, exchange.host, exchange.port) else { return nil }
        evhttp_connection_set_retries(made, 0)
        var backstop = Self.connectionTimeout
        evhttp_connection_set_timeout_tv(made, &backstop)
        let pooled = PooledConnection(made)
        list.append(pooled)
        pools[key] = list
        return pooled
    }

    private static func command(_ method: String) -> evhttp_cmd_type? {
        switch method {
        case "GET": EVHTTP_REQ_GET
        case "POST": EVHTTP_REQ_POST
        case "PUT": EVHTTP_REQ_PUT
        case "DELETE": EVHTTP_REQ_DELETE
        case "PATCH": EVHTTP_REQ_PATCH
        case "HEAD": EVHTTP_REQ_HEAD
        default: nil
        }
    }

    private static func failure(_ error: evhttp_request_error, errno code: Int32) -> EventHTTPFailure {
        switch error {
        case EVREQ_HTTP_TIMEOUT: .timedOut
        case EVREQ_HTTP_INVALID_HEADER, EVREQ_HTTP_DATA_TOO_LONG: .badResponse
        // errno is left over from earlier calls by then (EINPROGRESS): not the reason.
        case EVREQ_HTTP_EOF: .connectionFailed("the connection closed before the answer")
        default: .connectionFailed(code == 0 || code == EINPROGRESS ? "the connection failed" : Errno(code).description)
        }
    }
}
