/// Checks for task cancellation from synchronous engine code, cheaply enough for long loops.
struct CancellationCheck {
    /// Throws `CancellationError` if the current task is cancelled.
    @inline(__always) mutating func now() throws {
        if Task.isCancelled { throw CancellationError() }
    }
}
