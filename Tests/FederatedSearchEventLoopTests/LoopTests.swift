import Foundation
import Synchronization
import Testing
import FederatedSearchEventLoop
#if canImport(Glibc)
import Glibc
#endif

/// The event loop module on a real libevent loop, run on a thread of its own as the daemon
/// runs it.
@Suite("Event loop")
struct LoopTests {
    /// Runs `base` on a new thread until `body` has finished and the loop is stopped.
    final class LoopThread: @unchecked Sendable {
        // Safe for the test: `base` is used only on the loop thread once it starts, and the
        // test thread only waits for it.
        let base: EventBase
        let finished = DispatchSemaphore(value: 0)
        init() throws { base = try EventBase() }
        func start() {
            let thread = Thread { [self] in
                base.runForever()
                finished.signal()
            }
            thread.start()
        }
    }

    final class Received: Sendable {
        let messages = Mutex<[Int]>([])
    }

    @Test func messagesPostedFromManyThreadsAllArriveEachPostersInOrder() throws {
        let loop = try LoopThread()
        let received = Received()
        let total = 4 * 5_000
        let allIn = DispatchSemaphore(value: 0)
        // The inbox's closure runs on the loop thread; it holds only Sendable state.
        let holder = Mutex<LoopInbox<Int>?>(nil)
        let inbox = try LoopInbox<Int>(on: loop.base, maxRounds: 8) {
            let inbox = holder.withLock { $0 }
            inbox?.drain { n in
                let count = received.messages.withLock { m in
                    m.append(n)
                    return m.count
                }
                if count == total { allIn.signal() }
            }
        }
        holder.withLock { $0 = inbox }
        loop.start()
        DispatchQueue.concurrentPerform(iterations: 4) { poster in
            for i in 0..<5_000 { #expect(inbox.post(poster * 100_000 + i)) }
        }
        #expect(allIn.wait(timeout: .now() + 10) == .success, "every message handed to the loop")
        let messages = received.messages.withLock { $0 }
        for poster in 0..<4 {
            let own = messages.filter { $0 / 100_000 == poster }
            #expect(own == (0..<5_000).map { poster * 100_000 + $0 }, "poster \(poster)'s messages in the order posted")
        }
        // Stopped from the loop thread, as the daemon stops it; then posts are dropped.
        let stop = try LoopInbox<Int>(on: loop.base) { [base = UncheckedBase(loop.base)] in base.value.stop() }
        stop.post(0)
        #expect(loop.finished.wait(timeout: .now() + 5) == .success)
        inbox.close()
        stop.close()
        #expect(!inbox.post(1), "a closed inbox drops posts")
    }

    @Test func aTimerFiresOnTheLoopAfterItsDelay() throws {
        let loop = try LoopThread()
        let fired = DispatchSemaphore(value: 0)
        let started = ContinuousClock.now
        let elapsed = Mutex<Duration?>(nil)
        let timer = try #require(
            LoopEvent(on: loop.base, .timer(repeating: false)) {
                elapsed.withLock { $0 = ContinuousClock.now - started }
                fired.signal()
            })
        timer.schedule(after: .milliseconds(50))
        let stop = try LoopInbox<Int>(on: loop.base) { [base = UncheckedBase(loop.base)] in base.value.stop() }
        loop.start()
        #expect(fired.wait(timeout: .now() + 5) == .success)
        #expect(try #require(elapsed.withLock { $0 }) >= .milliseconds(50))
        stop.post(0)
        #expect(loop.finished.wait(timeout: .now() + 5) == .success)
        stop.close()
    }

    /// A socket pair: what one end writes through a ``BufferedSocket`` is read at the other,
    /// and the buffered end hears of the peer's bytes and of its closing.
    @Test func aBufferedSocketWritesReadsAndHearsThePeerLeave() throws {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let base = try EventBase()
        let handler = Handler()
        let socket = try BufferedSocket(on: base, descriptor: fds[0], handler: handler)
        handler.socket = socket
        socket.countOutput()
        socket.queue(Array("hello".utf8))
        #expect(handler.outputBytes == 5, "the queued bytes counted")
        #expect(write(fds[1], "ping", 4) == 4)
        // Turns until the peer's bytes are read and the output drained.
        for _ in 0..<50 where handler.read.isEmpty || handler.outputBytes > 0 {
            _ = base.runOnce(blocking: false)
            usleep(1000)
        }
        #expect(String(decoding: handler.read, as: UTF8.self) == "ping")
        #expect(handler.outputBytes == 0, "the output drained to the socket")
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = read(fds[1], &buffer, 16)
        #expect(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self) == "hello")
        close(fds[1])
        for _ in 0..<50 where !handler.ended {
            _ = base.runOnce(blocking: false)
            usleep(1000)
        }
        #expect(handler.ended, "the peer's close is seen as the end of input")
        socket.free()
    }

    final class Handler: BufferedSocketHandler {
        var socket: BufferedSocket?
        var read: [UInt8] = []
        var outputBytes = 0
        var ended = false
        func socketReadable() {
            while socket?.takeInputChunk(maxBytes: 1024, { read += $0 }) != nil {}
        }
        func socketWritable() {}
        func socketEvent(_ event: BufferedSocket.Event) { if event == .endOfInput { ended = true } }
        func socketOutputChanged(by delta: Int) { outputBytes += delta }
    }
}

/// Carries the loop's base into a closure that runs on the loop thread.
///
/// `@unchecked Sendable` is safe in these tests: the closure it goes to runs only on the
/// loop thread, the one that uses the base.
struct UncheckedBase: @unchecked Sendable {
    let value: EventBase
    init(_ value: EventBase) { self.value = value }
}
