import Dispatch
import Foundation

/// The floor under any client that reads its socket on one thread and shows results on the
/// main actor: the time from a thread handing a value over to the main actor holding it, with
/// the main actor idle before each hand-off (as it is while a keystroke's answer is awaited).
/// Measured the three ways a thread can reach the main actor: a synchronous block on the main
/// queue (what the library's connection does: an idle main actor's block runs on the calling
/// thread), an asynchronous one (one thread woken) and an `AsyncStream` read by a main-actor
/// task (resumed through the global executor first). A raw client that reads on the thread
/// that asked pays none.
@MainActor
enum HandOffBench {
    struct Result {
        /// Medians in microseconds.
        let mainQueueSync: Double
        let mainQueue: Double
        let stream: Double
    }

    static func median(count: Int = 2000, gapMicros: UInt32 = 300) async -> Result {
        Result(
            mainQueueSync: await viaMainQueue(count: count, gapMicros: gapMicros, synchronously: true),
            mainQueue: await viaMainQueue(count: count, gapMicros: gapMicros, synchronously: false),
            stream: await viaStream(count: count, gapMicros: gapMicros))
    }

    /// The values handed over as blocks on the main queue, each run on the main actor.
    private static func viaMainQueue(count: Int, gapMicros: UInt32, synchronously: Bool) async -> Double {
        @MainActor final class Sink {
            var samples: [Double] = []
        }
        let sink = Sink()
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        let thread = Thread {
            for i in 0..<count {
                usleep(gapMicros)
                let sent = ContinuousClock.now
                let block: @Sendable () -> Void = {
                    MainActor.assumeIsolated {
                        sink.samples.append(microseconds(since: sent))
                        if i == count - 1 { end.finish() }
                    }
                }
                if synchronously { DispatchQueue.main.sync(execute: block) } else { DispatchQueue.main.async(execute: block) }
            }
        }
        thread.start()
        for await _ in ended {}
        return fedsearch_bench.median(sink.samples)
    }

    /// The values handed to an `AsyncStream` read by this main-actor task.
    private static func viaStream(count: Int, gapMicros: UInt32) async -> Double {
        let (stream, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let thread = Thread {
            for _ in 0..<count {
                usleep(gapMicros)
                continuation.yield(ContinuousClock.now)
            }
            continuation.finish()
        }
        thread.start()
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for await sent in stream { samples.append(microseconds(since: sent)) }
        return fedsearch_bench.median(samples)
    }
}
