import FederatedSearchCore

/// Checks for task cancellation and for the query's deadline from synchronous engine code,
/// cheaply enough for long loops (the engine calls it between phases and every 4,096
/// documents, so the clock is read rarely).
struct CancellationCheck {
    /// The query's deadline: past it, the search stops with a `timeout` error, so a late
    /// in-memory source stops working instead of finishing an answer nobody will use.
    var deadline: ContinuousClock.Instant? = nil

    /// Throws `CancellationError` if the current task is cancelled, and a `timeout`
    /// ``SearchError`` if the deadline has passed.
    @inline(__always) mutating func now() throws {
        if Task.isCancelled { throw CancellationError() }
        if let deadline, ContinuousClock.now > deadline {
            throw SearchError(.timeout, "the deadline passed during the search; it was stopped")
        }
    }
}
