import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One Unix-socket connection to another fedsearchd, shared by many concurrent searches.
///
/// Requests are pipelined on the connection, each under its own id; a dedicated reader thread
/// (blocking `recv`, so no task of the cooperative pool ever blocks) frames the answers and
/// hands each request's outcome to the search waiting for it. When the connection fails,
/// every waiting search fails with `backend_error`, and the backend opens a new connection for
/// the next search. The reader thread keeps the connection alive until ``shutDown()`` (its
/// owner calls it when it is released) or the remote closes.
final class RemoteConnection: Sendable {
    /// What a search is waiting for: its `results` frame (or its error), until `done`.
    private struct Waiter {
        var continuation: CheckedContinuation<SearchResults, any Error>
        var results: SearchResults?
        var error: SearchError?
    }

    private struct State {
        var waiters: [String: Waiter] = [:]
        /// Set once the connection has failed; no new request is accepted.
        var failure: SearchError?
    }

    private let fd: Int32
    /// Where the connection goes, for messages.
    let path: String
    private let state = Mutex(State())
    /// Serialises writers so request lines never interleave.
    private let writeLock = Mutex(())

    /// Connects to the socket at `path` and starts the reader thread.
    init(path: String) throws(SearchError) {
        self.path = path
        let fd: Int32
        do { fd = try UnixSocketTransport.connect(path: path) } catch {
            throw SearchError(.backendError, "fedsearchd backend: \(error.description)")
        }
        self.fd = fd
        let thread = Thread { [self] in readLoop() }
        thread.name = "fedsearchd-remote-reader"
        thread.start()
    }

    /// Whether the connection has failed (a new one is needed).
    var isFailed: Bool { state.withLock { $0.failure != nil } }

    /// Sends `request` (which must carry `id`) and waits for its outcome: the source's results,
    /// or the error the remote reported for it.
    func search(id: String, request: JSONValue) async throws -> SearchResults {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<SearchResults, any Error>) in
            let failure = state.withLock { s -> SearchError? in
                if let f = s.failure { return f }
                s.waiters[id] = Waiter(continuation: continuation)
                return nil
            }
            if let failure { return continuation.resume(throwing: failure) }
            // A search cancelled before it was registered was missed by its cancellation
            // handler; one cancelled after is abandoned by it.
            if Task.isCancelled { return abandon(id: id, with: CancellationError()) }
            do throws(SearchError) { try send(request) } catch {
                fail(error)
            }
        }
    }

    /// Stops waiting for `id` and resumes its search with `error` (the frames still to come
    /// for it are dropped).
    func abandon(id: String, with error: any Error) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(throwing: error)
    }

    /// Writes one request line.
    func send(_ request: JSONValue) throws(SearchError) {
        var line = JSONWriter.bytes(request)
        line.append(0x0A)
        let error = writeLock.withLock { _ -> SearchError? in
            var offset = 0
            while offset < line.count {
                let n = line.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return SearchError(.backendError, "fedsearchd at \(path): send: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
            return nil
        }
        if let error { throw error }
    }

    /// Shuts the connection down; the reader thread fails what still waits and closes the socket.
    func shutDown() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Fails every waiting search and refuses new ones.
    private func fail(_ error: SearchError) {
        let waiters = state.withLock { s -> [Waiter] in
            if s.failure == nil { s.failure = error }
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for w in waiters { w.continuation.resume(throwing: error) }
    }

    private func readLoop() {
        var framer = LineFramer(maxLineBytes: 256 << 20)
        var chunk = [UInt8](repeating: 0, count: 65536)
        var failure = SearchError(.backendError, "fedsearchd at \(path) closed the connection")
        reading: while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0, errno == EINTR { continue }
            if n < 0 { failure = SearchError(.backendError, "fedsearchd at \(path): recv: \(String(cString: strerror(errno)))") }
            if n <= 0 { break }
            for event in framer.feed(chunk[0..<n]) {
                guard case .line(let line) = event else {
                    failure = SearchError(.backendBadResponse, "fedsearchd at \(path) sent an over-long line")
                    break reading
                }
                do { try handle(FrameDecoder.decode(line)) } catch {
                    failure = SearchError(.backendBadResponse, "fedsearchd at \(path) sent a bad frame: \(error.message)")
                    break reading
                }
            }
        }
        fail(failure)
        close(fd)
    }

    /// Routes one frame to the search it answers; `done` (or a request-level error) ends it.
    private func handle(_ frame: Frame) {
        guard let id = frame.id else { return }
        let finished = state.withLock { s -> (Waiter, Result<SearchResults, any Error>)? in
            guard var w = s.waiters[id] else { return nil }
            switch frame {
            case .results(_, _, let r):
                w.results = r
            case .error(_, let index, let e):
                w.error = e
                if index == nil {
                    s.waiters[id] = nil
                    return (w, .failure(e))
                }
            case .done(_, let status, _, _):
                s.waiters[id] = nil
                if status == .cancelled { return (w, .failure(CancellationError())) }
                if let r = w.results { return (w, .success(r)) }
                return (w, .failure(w.error ?? SearchError(.backendBadResponse, "no results frame before done")))
            default:
                break
            }
            s.waiters[id] = w
            return nil
        }
        if let (w, result) = finished { w.continuation.resume(with: result) }
    }
}
