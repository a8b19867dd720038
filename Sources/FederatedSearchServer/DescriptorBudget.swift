/// Keeps the connection limits below the process's descriptor limit, so that clients alone can
/// never take every descriptor: the listeners, the log, SQLite's files and the backends'
/// connections keep theirs.
public enum DescriptorBudget {
    /// Descriptors kept for everything but client connections: a fixed part (listeners, the
    /// loops' wake-ups, the log, the spare one for refusing a connection) and a part per index
    /// (a durable index's database, journal and lock files; a backend's pooled connections).
    public static func reserve(indices: Int) -> Int { 64 + 16 * indices }

    /// `limits` with `maxConnections` (which each transport counts on its own) lowered so that
    /// `transports` times it plus the reserve fits under `descriptorLimit`, and the line that
    /// says so; `limits` unchanged and nil when it fits already.
    public static func fit(
        _ limits: DaemonConfig.Limits, descriptorLimit: Int, transports: Int, indices: Int
    ) -> (DaemonConfig.Limits, warning: String?) {
        let room = max(1, (descriptorLimit - reserve(indices: indices)) / max(1, transports))
        guard limits.maxConnections > room else { return (limits, nil) }
        var fitted = limits
        fitted.maxConnections = room
        fitted.maxConnectionsPerAddress = min(limits.maxConnectionsPerAddress, room)
        let warning = """
            the descriptor limit (\(descriptorLimit)) leaves room for \(room) connections per transport once \
            \(reserve(indices: indices)) are kept for the daemon's own files: limits.maxConnections lowered from \
            \(limits.maxConnections) to \(room); raise LimitNOFILE (or ulimit -n) to serve more
            """
        return (fitted, warning)
    }
}
