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

    /// Writes ``json()``'s text.
    func write(into out: inout [UInt8]) {
        out.append(contentsOf: #"{"status":"#.utf8)
        JSONWriter.writeString(status.rawValue, into: &out)
        out.append(contentsOf: #","ms":"#.utf8)
        FrameWriter.writeMilliseconds(ms, into: &out)
        if let nbHits {
            out.append(contentsOf: #","nbHits":"#.utf8)
            JSONWriter.writeNumber(Double(nbHits), into: &out)
        }
        if let errorCode {
            out.append(contentsOf: #","code":"#.utf8)
            JSONWriter.writeString(errorCode.rawValue, into: &out)
        }
        if let suspendedForMs {
            out.append(contentsOf: #","suspendedForMs":"#.utf8)
            FrameWriter.writeMilliseconds(suspendedForMs, into: &out)
        }
        out.append(UInt8(ascii: "}"))
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
