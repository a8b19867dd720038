import Foundation
import Testing
import BackendTestSupport
@testable import FederatedSearchBackends
import FederatedSearchCore

/// ``HTTPTransport`` on its event-loop path (plain `http://`, libevent's evhttp client), against
/// the real test server: bodies and statuses, the pool's limit, a timeout that closes the
/// connection, cancellation before and during a request, and a refused connection.
@Suite struct HTTPTransportTests {
    static func request(
        _ server: SearchServerProcess, _ path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(10)
    ) -> OutgoingHTTPRequest {
        OutgoingHTTPRequest(
            body == nil ? "GET" : "POST", base: URL(string: server.baseURL)!, path: path, query: query,
            headers: [("X-Test", "on the loop")], body: body, timeout: timeout)
    }

    @Test func plainHTTPGoesOverTheLoopWithItsQueryHeadersAndBody() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 2)
        let r = Self.request(server, "/echo", query: [("q", "a&b c"), ("n", "1")], body: Array(#"{"k":"v"}"#.utf8))
        #expect(transport.timesExactly(r))
        let (body, status) = try await transport.perform(r, name: "t")
        #expect(status == 200)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains("a&b c"), "\(text)")
        #expect(text.contains("on the loop"))
        #expect(text.contains("\"body\": {\"k\": \"v\"}"), "\(text)")
        #expect(text.contains("\"path\": \"/echo?q=a%26b%20c&n=1\""), "\(text)")
        let (_, missing) = try await transport.perform(Self.request(server, "/status/404"), name: "t")
        #expect(missing == 404)
    }

    @Test func theClientKeepsToItsConnectionLimit() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 2)
        let before = try server.stats()["connections"] ?? 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            let slow = Self.request(server, "/slow", query: [("ms", "150")])
            for _ in 0..<6 { group.addTask { try await transport.perform(slow, name: "t").status } }
            for try await status in group { #expect(status == 200) }
        }
        let after = try server.stats()["connections"] ?? 0
        // Two connections for the six requests, one for the stats request itself.
        #expect(after - before <= 3)
        #expect(after - before >= 2)
    }

    @Test func aTimeoutIsExactAndClosesTheConnection() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 1)
        let clock = ContinuousClock()
        let start = clock.now
        let e = await #expect(throws: SearchError.self) {
            try await transport.perform(Self.request(server, "/slow", query: [("ms", "20000")], timeout: .milliseconds(300)), name: "t")
        }
        #expect(e?.code == .timeout)
        #expect(e?.message.hasPrefix("t: GET \(server.baseURL)/slow timed out") == true, "\(e?.message ?? "")")
        #expect(clock.now - start < .seconds(10), "the timeout ends the request before the server answers")
        #expect(try server.waitFor { $0["disconnects"] == 1 })
        // The pool's connection is made again for the next request.
        #expect(try await transport.perform(Self.request(server, "/status/200"), name: "t").status == 200)
    }

    @Test func eachRequestHasItsOwnTimerEvenQueuedBehindAnother() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 1)
        let first = Self.request(server, "/slow", query: [("ms", "1500")])
        let running = Task { try await transport.perform(first, name: "t") }
        #expect(try server.waitFor { $0["inflight"] == 1 })
        // On the one connection, behind the first: its own 0.3 s pass while it waits.
        let e = await #expect(throws: SearchError.self) {
            try await transport.perform(Self.request(server, "/status/200", timeout: .milliseconds(300)), name: "t")
        }
        #expect(e?.code == .timeout)
        // The first is not disturbed by it.
        #expect(try await running.value.status == 200)
        #expect(try server.stats()["disconnects"] == 0)
    }

    @Test func aKeptAliveConnectionClosedAsARequestGoesOutIsRetriedOnce() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 1)
        #expect(try await transport.perform(Self.request(server, "/status/200"), name: "t").status == 200)
        // The server drops the kept-alive connection without answering: sent again, answered.
        #expect(try await transport.perform(Self.request(server, "/drop-once"), name: "t").status == 200)
        #expect(try server.stats()["dropped"] == 1)
        // A first request on a new connection is not retried: the refusal is the answer.
        let fresh = try SearchServerProcess()
        defer { fresh.stop() }
        let e = await #expect(throws: SearchError.self) {
            try await HTTPTransport(maxConnections: 1).perform(Self.request(fresh, "/drop-once"), name: "t")
        }
        #expect(e?.code == .backendError)
    }

    @Test func cancellationBeforeAndDuringARequest() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let transport = HTTPTransport(maxConnections: 1)
        let long = Self.request(server, "/slow", query: [("ms", "20000")])
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.perform(long, name: "t")
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        let during = Task { try await transport.perform(long, name: "t") }
        #expect(try server.waitFor { $0["inflight"] == 1 })
        during.cancel()
        await #expect(throws: CancellationError.self) { try await during.value }
        #expect(try server.waitFor { $0["disconnects"] == 1 })
    }

    @Test func aRefusedConnectionIsABackendErrorWithItsReason() async throws {
        let server = try SearchServerProcess()
        let r = Self.request(server, "/search")
        server.stop()
        let e = await #expect(throws: SearchError.self) { try await HTTPTransport(maxConnections: 1).perform(r, name: "t") }
        #expect(e?.code == .backendError)
        #expect(e?.message.hasPrefix("t: GET \(server.baseURL)/search failed:") == true, "\(e?.message ?? "")")
    }
}
