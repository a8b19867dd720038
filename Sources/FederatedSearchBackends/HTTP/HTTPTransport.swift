import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
import FederatedSearchEventLoop
import Synchronization

/// The HTTP client shared by the HTTP-based backend kinds (`http`, `typesense`).
///
/// Plain `http://` requests go over keep-alive connections of ``EventHTTPLoop`` (libevent's
/// evhttp client on a thread of its own), at most `maxConnections` per host for this client;
/// `https://` ones go through a URLSession with the same limit. ``perform(_:name:)`` runs one
/// request and cancels it when the calling task is cancelled; transport failures become source
/// errors (`timeout`, `backend_error`, `backend_bad_response`) whose messages show the URL
/// without its query string.
public final class HTTPTransport: Sendable {
    private let session: URLSession
    private let maxConnections: Int
    /// This client's pool of connections on the shared loop.
    private let pool: UInt64
    private static let pools = Atomic<UInt64>(1)

    /// A client with no cache and no cookies, keeping up to `maxConnections` connections per host.
    public init(maxConnections: Int) {
        let c = URLSessionConfiguration.ephemeral
        c.httpMaximumConnectionsPerHost = maxConnections
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.urlCache = nil
        c.httpCookieStorage = nil
        c.timeoutIntervalForResource = 600
        session = URLSession(configuration: c)
        self.maxConnections = maxConnections
        pool = Self.pools.add(1, ordering: .relaxed).oldValue
    }

    deinit {
        session.finishTasksAndInvalidate()
        EventHTTPLoop.shared?.close(pool: pool)
    }

    /// Runs the request and returns the body and the status; cancelling the calling task
    /// cancels it (the server sees the connection close). `name` prefixes error messages.
    public func perform(_ request: URLRequest, name: String) async throws -> (Data, Int) {
        if EventHTTPLoop.shared != nil, let outgoing = OutgoingHTTPRequest(request), timesExactly(outgoing) {
            let (body, status) = try await perform(outgoing, name: name)
            return (Data(body), status)
        }
        return try await performWithSession(request, name: name, method: request.httpMethod ?? "GET")
    }

    /// Runs a request built by a backend: over the event loop when it is plain `http://`, else
    /// through URLSession. The body and the status; errors as for ``perform(_:name:)``.
    public func perform(_ request: OutgoingHTTPRequest, name: String) async throws -> (body: [UInt8], status: Int) {
        if let loop = EventHTTPLoop.shared, let exchange = request.exchange(pool: pool, maxConnections: maxConnections) {
            do {
                return try await loop.perform(exchange)
            } catch let failure as EventHTTPFailure {
                throw Self.transportError(failure, name: name, method: request.method, url: request.displayURL)
            }
        }
        guard let urlRequest = request.urlRequest else {
            throw SearchError(.backendError, "\(name): cannot build the URL of \(request.method) \(request.displayURL)")
        }
        let (data, status) = try await performWithSession(urlRequest, name: name, method: request.method)
        return ([UInt8](data), status)
    }

    /// Whether ``perform(_:name:)-(OutgoingHTTPRequest,_)`` times the request exactly (the
    /// event loop's timer) rather than in whole seconds (URLSession).
    public func timesExactly(_ request: OutgoingHTTPRequest) -> Bool {
        EventHTTPLoop.shared != nil && request.exchange(pool: pool, maxConnections: maxConnections) != nil
    }

    /// An `https://` request (or one the loop does not take), through URLSession.
    private func performWithSession(_ request: URLRequest, name: String, method: String) async throws -> (Data, Int) {
        let handle = RequestHandle()
        let session = session
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, Int), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.transportError(error, name: name, method: method, url: request.url))
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), http.statusCode))
                    } else {
                        continuation.resume(throwing: SearchError(.backendBadResponse, "\(name): not an HTTP response"))
                    }
                }
                if handle.start(task) { task.resume() } else { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// A failure of the loop's exchange as a source error.
    static func transportError(_ failure: EventHTTPFailure, name: String, method: String, url: String) -> SearchError {
        switch failure {
        case .timedOut: SearchError(.timeout, "\(name): \(method) \(url) timed out")
        case .connectionFailed(let why): SearchError(.backendError, "\(name): \(method) \(url) failed: \(why)")
        // The node's fault, not the request's: failed over like a connection error.
        case .badResponse: SearchError(.backendError, "\(name): \(method) \(url) failed: the answer is not HTTP")
        }
    }

    /// A transport failure as a source error: cancellation stays `CancellationError`, a
    /// URLSession timeout is `timeout`, anything else `backend_error`.
    static func transportError(_ error: any Error, name: String, method: String, url: URL?) -> any Error {
        if let e = error as? URLError {
            switch e.code {
            case .cancelled: return CancellationError()
            case .timedOut: return SearchError(.timeout, "\(name): \(method) \(redacted(url)) timed out")
            default: break
            }
        }
        return SearchError(.backendError, "\(name): \(method) \(redacted(url)) failed: \(error.localizedDescription)")
    }

    /// The request's own timeout: the time left before the deadline (30 s without one), rounded
    /// up to whole seconds because FoundationNetworking on Linux truncates it to whole seconds
    /// (so 0.9 s would time out at once; the loop's connections would take it exactly, but one
    /// rule serves both paths). The deadline itself is exact: the fan-out cancels the
    /// search at the deadline, and cancellation cancels the request.
    public static func timeoutInterval(until deadline: ContinuousClock.Instant?) -> Double {
        guard let deadline else { return 30 }
        let c = (deadline - ContinuousClock.now).components
        return max(1, (Double(c.seconds) + Double(c.attoseconds) / 1e18).rounded(.up))
    }

    /// The URL without its query string, for messages (the query string repeats the user's input).
    public static func redacted(_ url: URL?) -> String {
        guard let url, var c = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(invalid URL)" }
        c.query = nil
        c.fragment = nil
        c.user = nil
        c.password = nil
        return c.string ?? "(invalid URL)"
    }
}

/// The running request of one search, so that cancellation can reach it from another thread.
private final class RequestHandle: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }
    private let state = Mutex(State())

    /// Records the task; false when the search was already cancelled (the task must not start).
    func start(_ task: URLSessionDataTask) -> Bool {
        state.withLock { s in
            if s.cancelled { return false }
            s.task = task
            return true
        }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}
