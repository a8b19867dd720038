import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
import Synchronization

/// The URLSession client shared by the HTTP-based backend kinds (`http`, `typesense`).
///
/// One session per backend keeps at most `maxConnections` connections to the host open across
/// queries. ``perform(_:name:)`` runs one request and cancels it when the calling task is
/// cancelled; transport failures become source errors (`timeout`, `backend_error`) whose
/// messages show the URL without its query string.
public final class HTTPTransport: Sendable {
    private let session: URLSession

    /// A session with no cache and no cookies, keeping up to `maxConnections` connections.
    public init(maxConnections: Int) {
        let c = URLSessionConfiguration.ephemeral
        c.httpMaximumConnectionsPerHost = maxConnections
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.urlCache = nil
        c.httpCookieStorage = nil
        c.timeoutIntervalForResource = 600
        session = URLSession(configuration: c)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Runs the request and returns the body and the status; cancelling the calling task
    /// cancels it (the server sees the connection close). `name` prefixes error messages.
    public func perform(_ request: URLRequest, name: String) async throws -> (Data, Int) {
        let handle = RequestHandle()
        let method = request.httpMethod ?? "GET"
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
    /// (so 0.9 s would time out at once). The deadline itself is exact: the fan-out cancels the
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
