import Synchronization

/// Work that the sources of one federated request can share. The fan-out hands every source
/// of a request the same memo, and an engine keeps in it what depends on the query alone, not
/// on the index (the embedded engine: its typo automata). A source that finds a value reuses
/// it; one that does not computes it and may store it for the sources after it. A request's
/// memo lives as long as its queries.
public final class QueryMemo: Sendable {
    private let values = Mutex<[String: any Sendable]>([:])

    public init() {}

    /// The value stored under `key`, if any.
    public func value(for key: String) -> (any Sendable)? { values.withLock { $0[key] } }

    /// Stores `value` under `key`, replacing what was there.
    public func set(_ value: any Sendable, for key: String) { values.withLock { $0[key] = value } }
}
