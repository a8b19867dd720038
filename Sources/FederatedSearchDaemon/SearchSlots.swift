/// The daemon's search slots: searches running (of `limits.maxRunningSearches`), those whose
/// tasks run on the loop's executor, and those waiting for a slot, oldest first. Kept by the
/// connections as they start, queue, drop and end searches. Loop thread only; no I/O.
struct SearchSlots {
    /// Searches running on every connection.
    var running = 0
    /// Of those, the ones whose task runs on the loop's own executor.
    var onLoop = 0
    /// Searches waiting for a slot: the exact number (the queue may hold stale entries).
    var queued = 0
    /// The waiting searches as (connection, request key); entries of connections gone or
    /// searches cancelled since are skipped when popped.
    private var waiting = FIFO<(connection: UInt64, key: UInt64)>()

    /// Queues a search until a slot is free. Entries of searches cancelled or superseded while
    /// waiting stay until popped: they are dropped (those `isLive` rejects) when they outnumber
    /// the live ones, so the queue stays bounded by its limit.
    mutating func enqueue(connection: UInt64, key: UInt64, isLive: (UInt64, UInt64) -> Bool) {
        if waiting.count >= 2 * queued + 1024 { waiting = waiting.filter { isLive($0.connection, $0.key) } }
        waiting.append((connection, key))
        queued += 1
    }

    /// The oldest waiting entry (perhaps stale: its connection decides), while `slotFree`.
    mutating func next(slotFree: Bool) -> (connection: UInt64, key: UInt64)? {
        guard slotFree, let entry = waiting.popFirst() else {
            if queued == 0 { waiting.removeAll() }
            return nil
        }
        return entry
    }
}
