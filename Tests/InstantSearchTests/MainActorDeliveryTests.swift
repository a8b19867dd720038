import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import Testing
@testable import FederatedSearchClient

/// What a main-actor handler hears, as the connection's reader thread hands batches over.
@MainActor
struct MainActorDeliveryTests {
    @MainActor final class Heard {
        var events: [String] = []
    }

    private func route(_ heard: Heard, handle: RequestHandle = RequestHandle(id: "c1") {}) -> MainActorRoute {
        MainActorRoute(handle: handle) { event in
            switch event {
            case .frames(let frames): heard.events.append("frames \(frames.count)")
            case .ended: heard.events.append("ended")
            case .failed(let e): heard.events.append("failed \(e)")
            }
        }
    }

    private nonisolated static let pong = Frame.pong(id: "c1", protocolVersion: 1, version: "x")

    /// Runs `body` on a thread of its own, as the connection's reader thread, and returns once
    /// it has returned (the main actor is free meanwhile).
    private nonisolated func onReaderThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                body()
                done.resume()
            }.start()
        }
    }

    @Test func eachBatchIsHeardBeforeTheReaderGoesOn() async {
        let heard = Heard()
        let r = route(heard)
        await onReaderThread {
            r.deliver([Self.pong], ends: false)
            r.deliver([Self.pong, Self.pong], ends: true)
        }
        // No settling: the hand-off is synchronous, so the handler has had both batches.
        #expect(heard.events == ["frames 1", "frames 2", "ended"])
    }

    @Test func nothingComesAfterAFailureOrAnEnd() async {
        let heard = Heard()
        let r = route(heard)
        // The link failed (on the writer's queue) just before the reader routed a batch: the
        // failure's block is queued first, and the batch then is dropped.
        r.fail(.closed)
        await onReaderThread { r.deliver([Self.pong], ends: true) }
        await settle()
        #expect(heard.events == ["failed \(ClientError.closed)"])

        let ended = Heard()
        let e = route(ended)
        await onReaderThread { e.deliver([], ends: true) }
        e.fail(.disconnected("gone"))
        await settle()
        #expect(ended.events == ["ended"])
    }

    @Test func nothingComesAfterACancel() async {
        let heard = Heard()
        let handle = RequestHandle(id: "c1") {}
        let r = route(heard, handle: handle)
        // The reader hands a batch over while the main actor is busy: it waits behind this
        // job, which cancels the request before it yields.
        let reader = Task.detached { await self.onReaderThread { r.deliver([Self.pong], ends: true) } }
        usleep(20_000)
        handle.cancel()
        await reader.value
        #expect(heard.events.isEmpty)
        #expect(handle.isCancelled)
    }
}
