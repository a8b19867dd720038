/// The bytes the daemon holds for its clients, and when the heap is to be given back to the
/// system (glibc keeps freed heap otherwise). Loop thread only; no I/O: the loop acts on what
/// it says.
struct MemoryBudget {
    /// Bytes queued for every client and not yet taken by their sockets (outboxes and
    /// libevent's output buffers).
    private(set) var pendingOutputBytes = 0
    /// Of those, the bytes of lines sent in pieces not yet copied to libevent: held as the
    /// answers' own hits, not as copies (see ``Connection/write(_:endsAnswer:)``).
    private(set) var streamedOutputBytes = 0
    /// Bytes of unfinished lines held for every socket client (see `limits.maxTotalPendingInputBytes`).
    private(set) var pendingInputBytes = 0
    /// The most `pendingOutputBytes` reached since the heap was last trimmed.
    private var outputPeak = 0
    /// The most `pendingInputBytes` reached since the heap was last trimmed for it.
    private var inputPeak = 0

    /// A burst at least this large is followed by `malloc_trim` once it is read (or dropped).
    static let trimAfterPeakBytes = 32 << 20

    /// Whether clients hold more unread output than `limit`.
    func isOver(_ limit: Int) -> Bool { pendingOutputBytes > limit }

    /// Output was queued (positive), or written or dropped (negative), for some client.
    mutating func outputChanged(by delta: Int) {
        pendingOutputBytes += delta
        outputPeak = max(outputPeak, pendingOutputBytes)
    }

    /// Streamed output was queued (positive), or copied to libevent or dropped (negative).
    mutating func streamedOutputChanged(by delta: Int) {
        streamedOutputBytes += delta
        outputChanged(by: delta)
    }

    /// A large burst has been read (or dropped) whole: the heap is to be trimmed (then
    /// ``outputTrimmed()``).
    var outputTrimDue: Bool { pendingOutputBytes == 0 && outputPeak >= Self.trimAfterPeakBytes }

    mutating func outputTrimmed() { outputPeak = 0 }

    /// A search's answer of `bytes` was built and dropped (`answer_too_large`): like a burst
    /// of output read, a large one is followed by a trim once no output is pending.
    mutating func largeAnswerDropped(bytes: Int) {
        if bytes >= Self.trimAfterPeakBytes { outputPeak = max(outputPeak, bytes) }
    }

    /// A connection's unfinished line grew (positive), or was completed or dropped
    /// (negative); true when a large burst of input has just been let go whole (the heap is
    /// to be trimmed, once per burst).
    mutating func inputChanged(by delta: Int) -> Bool {
        pendingInputBytes += delta
        inputPeak = max(inputPeak, pendingInputBytes)
        guard pendingInputBytes == 0, inputPeak >= Self.trimAfterPeakBytes else { return false }
        inputPeak = 0
        return true
    }
}
