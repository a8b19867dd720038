import FederatedSearchServer
/// Which connections started the last few searches: whether one client is alone, waiting for
/// each answer, or several share the cores.
///
/// A search of a client alone that waits for it runs at once on the loop with no task
/// (``QueryPlacement/Kind/direct``); with several clients it would take the loop from the
/// others' requests. A search that finds nothing running is not proof of being alone: between
/// two of its requests, each of four clients often finds the daemon idle. Loop thread only.
struct RecentRequesters {
    /// How many of the latest searches must all come from one connection.
    static let window = 8
    private var ids = [UInt64](repeating: 0, count: window)
    private var next = 0
    private var recorded = 0

    /// Records that `connection` starts a search; returns whether the last ``window`` searches
    /// (this one included) all came from it. Until that many were seen, only those seen count.
    mutating func record(_ connection: UInt64) -> Bool {
        ids[next] = connection
        next = (next + 1) % Self.window
        recorded = min(recorded + 1, Self.window)
        for i in 0..<recorded where ids[i] != connection { return false }
        return true
    }
}
