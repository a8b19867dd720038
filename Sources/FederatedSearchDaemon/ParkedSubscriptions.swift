import FederatedSearchProtocol

/// HTTP stream subscriptions whose client went, kept for ``window`` by their resume token so
/// that a client coming back with `Last-Event-ID` gets what changed since (their pages and
/// `seq`; no search runs for them meanwhile). At most `limit` are kept: the oldest goes first.
struct ParkedSubscriptions {
    struct Entry {
        let shared: LiveSubscriptions.Shared
        let pages: [String: LivePage]
        let merged: LivePage?
        let seq: Int
        let until: ContinuousClock.Instant
    }

    /// How long a gone subscriber's subscription can be resumed.
    static let window = Duration.seconds(60)

    private var entries: [String: Entry] = [:]

    mutating func park(
        _ token: String, shared: LiveSubscriptions.Shared, pages: [String: LivePage], merged: LivePage?, seq: Int, limit: Int
    ) {
        let now = ContinuousClock.now
        entries = entries.filter { $0.value.until > now }
        if entries.count >= limit, let oldest = entries.min(by: { $0.value.until < $1.value.until }) { entries[oldest.key] = nil }
        entries[token] = Entry(shared: shared, pages: pages, merged: merged, seq: seq, until: now + Self.window)
    }

    /// The subscription parked under `token`, taken out; nil if none or expired.
    mutating func take(_ token: String) -> Entry? {
        guard let p = entries.removeValue(forKey: token), p.until > .now else { return nil }
        return p
    }
}
