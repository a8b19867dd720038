import Dispatch
import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import Synchronization
import Testing
@testable import FederatedSearchClient

/// What a main-actor handler hears, as the connection's reader thread hands batches over.
@MainActor
struct MainActorDeliveryTests {
    /// What the handler heard and what the reader did, in the order they happened.
    final class Log: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    private func route(_ log: Log, handle: RequestHandle = RequestHandle(id: "c1") {}) -> MainActorRoute {
        MainActorRoute(handle: handle) { event in
            switch event {
            case .frames(let frames): log.add("frames \(frames.count)")
            case .ended: log.add("ended")
            case .failed(let e): log.add("failed \(e)")
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

    @Test func batchesAndTheEndAreHeardInOrderOnTheMainActor() async {
        let log = Log()
        let r = route(log)
        await onReaderThread {
            r.deliver([Self.pong], ends: false)
            r.deliver([Self.pong, Self.pong], ends: true)
        }
        await settle()
        #expect(log.all == ["frames 1", "frames 2", "ended"])
    }

    @Test func nothingComesAfterAFailureOrAnEnd() async {
        let log = Log()
        let r = route(log)
        // The link failed (on the writer's queue) just before the reader routed a batch: the
        // failure's block is queued first, and the batch then is dropped.
        r.fail(.closed)
        await onReaderThread { r.deliver([Self.pong], ends: true) }
        await settle()
        #expect(log.all == ["failed \(ClientError.closed)"])

        let ended = Log()
        let e = route(ended)
        await onReaderThread { e.deliver([], ends: true) }
        e.fail(.disconnected("gone"))
        await settle()
        #expect(ended.all == ["ended"])
    }

    /// Runs `reader` on a reader thread while this main-actor job stays busy, so that its
    /// hand-off waits behind the job; `meanwhile` runs once the reader has handed off, before
    /// the job ends. Returns once the reader has returned.
    private func whileMainActorIsBusy(reader: @escaping @Sendable () -> Void, meanwhile: () -> Void) async {
        let handedOff = DispatchSemaphore(value: 0)
        let thread = Task.detached {
            await self.onReaderThread {
                reader()
                handedOff.signal()  // its hand-off (a main-queue block) waits behind this job
            }
        }
        handedOff.wait()
        meanwhile()
        await thread.value
    }

    @Test func aBatchWaitingForABusyMainActorIsDroppedIfTheRequestFailsMeanwhile() async {
        let log = Log()
        let r = route(log)
        // The connection is closed on the main actor while the reader's batch waits for it:
        // the request hears only that it was closed.
        await whileMainActorIsBusy(reader: { r.deliver([Self.pong], ends: true) }, meanwhile: { r.fail(.closed) })
        await settle()
        #expect(log.all == ["failed \(ClientError.closed)"])
    }

    @Test func aBatchWaitingForABusyMainActorIsDroppedIfCancelledMeanwhile() async {
        let log = Log()
        let handle = RequestHandle(id: "c1") {}
        let r = route(log, handle: handle)
        // The reader's hand-off waits behind this job until the request is cancelled and the
        // job ends.
        await whileMainActorIsBusy(
            reader: {
                r.deliver([Self.pong], ends: true)
                log.add("reader on")
            },
            meanwhile: {
                #expect(!log.all.contains("frames 1"), "the handler runs on the main actor, busy here")
                handle.cancel()
            })
        await settle()
        #expect(log.all == ["reader on"])
        #expect(handle.isCancelled)
    }
}
