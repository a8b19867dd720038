import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

extension ConnectionState {
    /// The reason of a `disconnected` state.
    fileprivate var disconnectReason: String? {
        if case .disconnected(let reason, _) = self { return reason }
        return nil
    }
}

extension ClientError {
    /// The message of an `unavailable` error.
    fileprivate var unavailableMessage: String? {
        if case .unavailable(let message) = self { return message }
        return nil
    }

    /// Whether this is a `disconnected` error.
    fileprivate var isDisconnected: Bool {
        if case .disconnected = self { return true }
        return false
    }
}

/// The client library's async connection against the real daemon on the demo config:
/// 1. many requests in flight from many tasks, each answer routed to its own request;
/// 2. a consumer that stops listening cancels its search on the daemon;
/// 3. a daemon that is not running is a clear error, and a daemon that restarts is reached
///    again (requests in flight end with `disconnected`, then the connection comes back).
@Suite(.serialized)
struct DaemonConnectionTests {
    static func search(_ text: String, _ index: String = "movies", hits: Int = 3) -> Request.Operation {
        var p = SearchParameters()
        p.hitsPerPage = hits
        return .search(SearchRequest(query: text, targets: [SearchTarget(index: index)], parameters: p))
    }

    @Test func pipelinedRequestsAreRoutedToTheirOwnStreams() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let words = ["star", "war", "love", "night", "man", "dog", "city", "blue", "king", "girl"]
        let answers = try await withThrowingTaskGroup(of: (String, [Frame]).self) { group in
            for round in 0..<5 {
                for w in words {
                    group.addTask {
                        let index = round % 2 == 0 ? "movies" : "products"
                        return ("\(index):\(w)", try await connection.roundTrip(Self.search(w, index)))
                    }
                }
            }
            var all: [(String, [Frame])] = []
            for try await a in group { all.append(a) }
            return all
        }
        #expect(answers.count == 50)
        for (key, frames) in answers {
            let parts = key.split(separator: ":").map(String.init)
            guard case .results(let id, let index, let results)? = frames.first else {
                Issue.record("\(key): no results frame: \(frames)")
                continue
            }
            #expect(index == parts[0])
            #expect(results.query == parts[1], "the answer to \(key) is another request's")
            #expect(frames.allSatisfy { $0.id == id })
            guard case .done(_, .ok, _, _)? = frames.last else {
                Issue.record("\(key): did not end with done ok: \(frames.last.map { "\($0)" } ?? "nothing")")
                continue
            }
        }
    }

    @Test func aConsumerThatStopsListeningCancelsItsSearch() async throws {
        // A slow source, so the search is still running when the consumer leaves.
        let server = try SearchServerProcess()
        defer { server.stop() }
        let d = try DaemonProcess(config: [
            "searchables": [
                "slow": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=20000"), "timeoutMs": 30000,
                    "response": ["hits": "results.items"],
                ]
            ]
        ])
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let task = Task { try await connection.roundTrip(Self.search("x", "slow")) }
        #expect(try poll(seconds: 10) { try server.stats()["inflight"] == 1 })
        task.cancel()
        _ = try? await task.value
        #expect(try poll(seconds: 10) { try server.stats()["inflight"] == 0 }, "the daemon still runs the abandoned search")
    }

    @Test func aCancelledSearchKeepsItsPlaceUntilTheDaemonEndsIt() async throws {
        // 16 slow searches fill the daemon's per-connection limit, a 17th waits in the
        // connection; cancelling one must not send the 17th before the daemon freed the place.
        let server = try SearchServerProcess()
        defer { server.stop() }
        let d = try DaemonProcess(config: [
            "searchables": [
                "slow": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=1500"), "timeoutMs": 30000,
                    "response": ["hits": "results.items"],
                ]
            ]
        ])
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let firstResponse = try connection.send(Self.search("first", "slow"))
        let first = Task { try await firstResponse.collect() }
        let others = try (0..<16).map { i in try connection.send(Self.search("q\(i)", "slow")) }
        // A barrier: the daemon acts on a connection's lines in order, so once the pong is back
        // it has admitted the 16 searches it was sent (the 17th waits in the connection).
        _ = try await connection.roundTrip(.ping)
        first.cancel()
        _ = try? await first.value
        for response in others {
            let frames = try await response.collect()
            #expect(errorCode(frames.last) == nil, "refused: \(frames)")
            guard case .done(_, .ok, _, _)? = frames.last else {
                Issue.record("\(frames)")
                continue
            }
        }
    }

    /// A search whose consumer stopped listening frees its place in flight once the daemon
    /// ends it: with room for one search, the next one is sent and answered.
    @Test func aCancelledSearchFreesItsPlaceWhenTheDaemonEndsIt() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let d = try DaemonProcess(config: [
            "searchables": [
                "slow": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=1500"), "timeoutMs": 30000,
                    "response": ["hits": "results.items"],
                ],
                "quick": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=10"), "timeoutMs": 30000,
                    "response": ["hits": "results.items"],
                ],
            ]
        ])
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath, maxSearchesInFlight: 1)
        defer { connection.close() }
        for round in 0..<3 {
            let slow = try connection.send(Self.search("s\(round)", "slow"))
            let consumer = Task { try await slow.collect() }
            _ = try await connection.roundTrip(.ping)
            consumer.cancel()
            _ = try? await consumer.value
        }
        // Answered within 20 s, or the places were never given back.
        let next = Task { try await connection.roundTrip(Self.search("after", "quick")) }
        let timer = Task {
            try await Task.sleep(for: .seconds(20))
            next.cancel()
        }
        let frames = try? await next.value
        timer.cancel()
        try #require(
            frames?.last?.doneValue?.status == .ok,
            "the search after three cancelled ones was not answered: \(frames.map { "\($0)" } ?? "nothing")")
    }

    @Test func aMissingDaemonIsAClearErrorAndARestartedOneIsReachedAgain() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath, backoff: Backoff(initial: .milliseconds(20), maximum: .milliseconds(200)))
        defer { connection.close() }
        _ = try await connection.roundTrip(.ping)
        #expect(connection.currentState == .connected)
        var states = connection.states().makeAsyncIterator()
        #expect(await states.next() == .connected)

        d.halt(kill: true)
        let afterDeath = await states.next()
        let reason = try #require(afterDeath?.disconnectReason, "no disconnected state after the daemon died")
        #expect(reason.contains("closed the connection"))
        do {
            _ = try await connection.roundTrip(.ping)
            Issue.record("a ping reached a dead daemon")
        } catch let e as ClientError {
            let message = try #require(e.unavailableMessage, "expected unavailable, got \(e)")
            #expect(message.contains(d.socketPath))
        }

        try d.start()
        var back = false
        for _ in 0..<200 {
            if await states.next() == .connected {
                back = true
                break
            }
        }
        #expect(back, "the connection did not come back after the restart")
        let frames = try await connection.roundTrip(Self.search("star"))
        try #require(frames.last?.doneValue?.status == .ok, "after the restart: \(frames)")
    }

    @Test func aRequestInFlightWhenTheDaemonDiesEndsWithDisconnected() async throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let d = try DaemonProcess(config: [
            "searchables": [
                "slow": [
                    "backend": "http", "url": .string("\(server.baseURL)/slow?ms=20000"), "timeoutMs": 30000,
                    "response": ["hits": "results.items"],
                ]
            ]
        ])
        defer { d.stop() }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let response = try connection.send(Self.search("x", "slow"))
        #expect(try poll(seconds: 10) { try server.stats()["inflight"] == 1 })
        d.halt(kill: true)
        do {
            _ = try await response.collect()
            Issue.record("the answer ended without an error")
        } catch let e as ClientError {
            try #require(e.isDisconnected, "expected disconnected, got \(e)")
        }
    }
}
