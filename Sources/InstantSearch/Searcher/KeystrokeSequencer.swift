/// The order of a searcher's requests: each gets the next `seq` of the searcher's session
/// (sent to the daemon, which cancels the older ones it still runs), and an answer is
/// delivered only if no newer request has delivered one, so a result of an older keystroke
/// never follows a newer one's, however the frames race.
struct KeystrokeSequencer {
    /// The session name sent with every request.
    let session: String
    private(set) var lastIssued = 0
    private(set) var lastDelivered = 0
    /// The requests issued and not yet ended.
    private(set) var running = Set<Int>()

    init(session: String) { self.session = session }

    /// The seq of a new request.
    mutating func issue() -> Int {
        lastIssued += 1
        running.insert(lastIssued)
        return lastIssued
    }

    /// Whether a frame of request `seq` may be delivered now (and marks it delivered).
    mutating func shouldDeliver(_ seq: Int) -> Bool {
        guard seq >= lastDelivered else { return false }
        lastDelivered = seq
        return true
    }

    /// Request `seq` ended; returns whether any request is still running.
    mutating func ended(_ seq: Int) -> Bool {
        running.remove(seq)
        return !running.isEmpty
    }

    /// Every running request is abandoned; frames still to come are not delivered.
    mutating func abandonAll() {
        running.removeAll()
        lastDelivered = lastIssued + 1
        lastIssued += 1
    }
}

/// A session name unique to this process and searcher.
func newSessionName(_ prefix: String) -> String {
    "\(prefix)-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
}
