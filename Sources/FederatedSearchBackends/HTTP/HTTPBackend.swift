import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore
import Synchronization

/// The `http` backend: an existing REST search endpoint, entirely described in JSON config
/// (see ``HTTPBackendConfig`` and ``HTTPResponseMapping``).
///
/// One `URLSession` per backend keeps connections to the host open across queries (at most
/// `maxConnections`). Each request's timeout is the time left before the query's deadline;
/// cancelling the query cancels the request. Failures are source errors:
/// `backend_http_error` (a non-2xx status), `backend_bad_response` (not JSON, or a mapping
/// path that failed), `backend_error` (the host cannot be reached), `timeout`.
public final class HTTPBackend: Searchable {
    public let name: String
    public let config: HTTPBackendConfig
    private let session: URLSession

    /// Builds the backend from its config options.
    public convenience init(_ config: BackendConfig) throws(SearchError) {
        self.init(name: config.name, config: try HTTPBackendConfig(config))
    }

    public init(name: String, config: HTTPBackendConfig) {
        self.name = name
        self.config = config
        let c = URLSessionConfiguration.ephemeral
        c.httpMaximumConnectionsPerHost = config.maxConnections
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.urlCache = nil
        c.httpCookieStorage = nil
        c.timeoutIntervalForResource = 600
        session = URLSession(configuration: c)
    }

    deinit { session.finishTasksAndInvalidate() }

    public var description: SearchableDescription {
        SearchableDescription(kind: "http", documentCount: nil, searchableAttributes: [], attributesForFaceting: [])
    }

    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        let request = try makeRequest(query)
        let (data, status) = try await perform(request)
        guard (200..<300).contains(status) else {
            throw SearchError(.backendHTTPError, "\(name): HTTP \(status) from \(config.method) \(Self.redacted(request.url))")
        }
        let answer: JSONValue
        do { answer = try JSONParser.parse([UInt8](data)) } catch {
            throw SearchError(.backendBadResponse, "\(name): the answer is not JSON (\(error))")
        }
        do {
            var results = try config.mapping.results(from: answer, query: query)
            results.index = name
            return results
        } catch { throw SearchError(error.code, "\(name): \(error.message)") }
    }

    /// The request for one query: the URL with percent-encoded values, the headers, the body,
    /// and a timeout of the time left before the deadline.
    func makeRequest(_ query: SearchQuery) throws(SearchError) -> URLRequest {
        let values = TemplateValues(query: query)
        let text = config.url.render(values, encode: StringTemplate.percentEncode)
        guard let url = URL(string: text) else {
            throw SearchError(.backendError, "\(name): the url template gave an invalid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = config.method
        for h in config.headers { request.setValue(h.value.value, forHTTPHeaderField: h.name) }
        if let body = config.body {
            request.httpBody = Data(JSONWriter.bytes(body.render(values)))
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        if request.value(forHTTPHeaderField: "Accept") == nil { request.setValue("application/json", forHTTPHeaderField: "Accept") }
        request.timeoutInterval = Self.timeoutInterval(until: query.deadline)
        return request
    }

    /// The request's own timeout: the time left before the deadline (30 s without one), rounded
    /// up to whole seconds because FoundationNetworking on Linux truncates it to whole seconds
    /// (so 0.9 s would time out at once). The deadline itself is exact: the fan-out cancels the
    /// search at the deadline, and cancellation cancels the request.
    static func timeoutInterval(until deadline: ContinuousClock.Instant?) -> Double {
        guard let deadline else { return 30 }
        let c = (deadline - ContinuousClock.now).components
        return max(1, (Double(c.seconds) + Double(c.attoseconds) / 1e18).rounded(.up))
    }

    /// Runs the request; cancelling the calling task cancels it.
    private func perform(_ request: URLRequest) async throws -> (Data, Int) {
        let handle = RequestHandle()
        let method = config.method
        let name = name
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

    /// The URL without its query string, for messages (the query string repeats the user's input).
    static func redacted(_ url: URL?) -> String {
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
