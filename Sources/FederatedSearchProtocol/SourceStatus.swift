import FederatedSearchCore

/// What one source did for a request, as reported in the `done` frame.
public struct SourceReport: Sendable, Equatable {
    /// How the source ended.
    public enum Status: String, Sendable, Equatable {
        case ok, timeout, error, cancelled, superseded
        /// Not asked: its circuit breaker is open (see `suspendedUntil`).
        case skipped
    }

    public var status: Status
    /// Wall time spent on the source, in milliseconds.
    public var ms: Double
    /// The source's nbHits, when it answered.
    public var nbHits: Int?
    /// The error code, when it failed.
    public var errorCode: ErrorCode?
    /// For a skipped source: milliseconds until its breaker lets a probe through.
    public var suspendedForMs: Double?

    public init(status: Status, ms: Double, nbHits: Int? = nil, errorCode: ErrorCode? = nil, suspendedForMs: Double? = nil) {
        self.status = status
        self.ms = ms
        self.nbHits = nbHits
        self.errorCode = errorCode
        self.suspendedForMs = suspendedForMs
    }

    func json() -> JSONValue {
        var o = JSONObject()
        o.appendUnchecked("status", .string(status.rawValue))
        o.appendUnchecked("ms", .number(Frame.roundMs(ms)))
        if let nbHits { o.appendUnchecked("nbHits", .number(Double(nbHits))) }
        if let errorCode { o.appendUnchecked("code", .string(errorCode.rawValue)) }
        if let suspendedForMs { o.appendUnchecked("suspendedForMs", .number(Frame.roundMs(suspendedForMs))) }
        return .object(o)
    }
}
