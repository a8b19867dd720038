/// The recent rate of a long job (documents acknowledged per second), for a progress line's
/// rate and ETA.
///
/// The rate is measured over the last ``window`` seconds of samples, starting at the first
/// sample, not at the job's start: the first acknowledgment also pays for connecting and for
/// the daemon's one-time work, so a rate averaged from the start (or over the first batch
/// alone) would make the first ETA far too long. Until two samples span ``minimumSpan``
/// seconds there is no rate.
public struct ThroughputMeter: Sendable {
    /// How far back the rate looks, in seconds.
    public let window: Double
    /// The shortest span of samples a rate is given for, in seconds.
    public let minimumSpan: Double
    private var samples: [(seconds: Double, done: Int)] = []

    public init(window: Double = 3, minimumSpan: Double = 0.25) {
        self.window = window
        self.minimumSpan = minimumSpan
    }

    /// Records that `done` units were complete `seconds` after the job started.
    public mutating func record(done: Int, at seconds: Double) {
        // The first acknowledgments may come as one burst (a write group answering many
        // batches at once): the rate is measured from the burst's end, not from inside it.
        if samples.count == 1, seconds - samples[0].seconds < Self.burstSeconds {
            samples[0] = (seconds, done)
            return
        }
        samples.append((seconds, done))
        // Keep one sample at or before the window's start, so the window stays covered.
        while samples.count > 2, samples[1].seconds <= seconds - window { samples.removeFirst() }
    }

    /// Acknowledgments this close to the first one belong to its burst.
    static let burstSeconds = 0.02

    /// Units per second over the window, or nil while there is too little to tell.
    public var rate: Double? {
        guard let first = samples.first, let last = samples.last, last.seconds - first.seconds >= max(minimumSpan, 1e-6) else {
            return nil
        }
        return Double(last.done - first.done) / (last.seconds - first.seconds)
    }

    /// Seconds until `total` at the current rate, or nil without a rate.
    public func secondsLeft(total: Int) -> Double? {
        guard let rate, rate > 0, let last = samples.last else { return nil }
        return Double(max(0, total - last.done)) / rate
    }
}
