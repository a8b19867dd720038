import Foundation

/// The floor under any client that reads its socket on one thread and shows results on the
/// main actor: the time from a thread handing a value to an `AsyncStream` to a main-actor
/// task holding it, with the main actor idle before each hand-off (as it is while a keystroke's
/// answer is awaited). The library pays this at least once per keystroke; a raw client that
/// reads on the thread that asked pays nothing.
@MainActor
enum HandOffBench {
    /// The median one-way hand-off over `count` values, in microseconds.
    static func median(count: Int = 2000, gapMicros: UInt32 = 300) async -> Double {
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
        samples.sort()
        return samples.isEmpty ? 0 : samples[samples.count / 2]
    }
}
