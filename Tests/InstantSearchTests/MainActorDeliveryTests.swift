import FederatedSearchCore
import FederatedSearchProtocol
import Testing
@testable import FederatedSearchClient

/// What a main-actor handler hears, as the connection's reader hands batches over.
@MainActor
struct MainActorDeliveryTests {
    @MainActor final class Heard {
        var events: [String] = []
    }

    private func route(_ heard: Heard) -> MainActorRoute {
        MainActorRoute(handle: RequestHandle(id: "c1") {}) { event in
            switch event {
            case .frames(let frames): heard.events.append("frames \(frames.count)")
            case .ended: heard.events.append("ended")
            case .failed(let e): heard.events.append("failed \(e)")
            }
        }
    }

    @Test func batchesArriveInOrderThenTheEnd() async {
        let heard = Heard()
        let r = route(heard)
        r.deliver([.pong(id: "c1", protocolVersion: 1, version: "x")], ends: false)
        r.deliver([.pong(id: "c1", protocolVersion: 1, version: "x"), .pong(id: "c1", protocolVersion: 1, version: "x")], ends: true)
        await settle()
        #expect(heard.events == ["frames 1", "frames 2", "ended"])
    }

    @Test func nothingComesAfterAFailureOrAnEnd() async {
        let heard = Heard()
        let r = route(heard)
        // The link failed (on the writer's queue) just after the reader routed a batch: the
        // failure's block may run first; the batch then is dropped.
        r.fail(.closed)
        r.deliver([.pong(id: "c1", protocolVersion: 1, version: "x")], ends: true)
        await settle()
        #expect(heard.events == ["failed \(ClientError.closed)"])

        let ended = Heard()
        let e = route(ended)
        e.deliver([], ends: true)
        e.fail(.disconnected("gone"))
        await settle()
        #expect(ended.events == ["ended"])
    }

    @Test func nothingComesAfterACancel() async {
        let heard = Heard()
        let handle = RequestHandle(id: "c1") {}
        let r = MainActorRoute(handle: handle) { _ in heard.events.append("event") }
        r.deliver([.pong(id: "c1", protocolVersion: 1, version: "x")], ends: true)
        handle.cancel()  // before the queued block runs
        await settle()
        #expect(heard.events.isEmpty)
        #expect(handle.isCancelled)
    }
}
