/// A stable, machine-readable error code. The wire protocol sends `rawValue` as `code`.
///
/// Codes are part of the protocol contract (documented in docs/PROTOCOL.md): they never change
/// meaning. Backends may define further codes with `ErrorCode(rawValue:)`.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // User errors: the request was wrong.
    /// The line is not valid JSON (the message gives the byte offset).
    public static let invalidJSON = ErrorCode(rawValue: "invalid_json")
    /// The request is JSON but not an object.
    public static let invalidRequest = ErrorCode(rawValue: "invalid_request")
    /// The `op` is not one the daemon knows.
    public static let unknownOp = ErrorCode(rawValue: "unknown_op")
    /// A required field is missing.
    public static let missingField = ErrorCode(rawValue: "missing_field")
    /// A field has the wrong type or an out-of-range value (the message names its path).
    public static let invalidField = ErrorCode(rawValue: "invalid_field")
    /// A field is not known (a typo is never silently ignored).
    public static let unknownField = ErrorCode(rawValue: "unknown_field")
    /// An index named in the request is not configured.
    public static let unknownIndex = ErrorCode(rawValue: "unknown_index")
    /// A filter expression is malformed (the message gives the position and what was expected).
    public static let invalidFilter = ErrorCode(rawValue: "invalid_filter")
    /// A request line is longer than the configured limit; the connection is closed after it.
    public static let lineTooLong = ErrorCode(rawValue: "line_too_long")
    /// A request reused the id of a request still running on the same connection.
    public static let duplicateID = ErrorCode(rawValue: "duplicate_id")
    /// `cancel` named a request that is not running.
    public static let unknownRequest = ErrorCode(rawValue: "unknown_request")
    /// HTTP: no endpoint answers this path (or the dashboard is off, or has no such file).
    public static let unknownRoute = ErrorCode(rawValue: "unknown_route")
    /// HTTP: the endpoint exists but not with this method (the `Allow` header lists those it takes).
    public static let methodNotAllowed = ErrorCode(rawValue: "method_not_allowed")
    /// HTTP: the request body is larger than the listener takes.
    public static let bodyTooLarge = ErrorCode(rawValue: "body_too_large")
    /// The request text is not valid UTF-8.
    public static let invalidUTF8 = ErrorCode(rawValue: "invalid_utf8")

    /// The daemon serves its maximum number of connections; this one is closed.
    public static let tooManyConnections = ErrorCode(rawValue: "too_many_connections")
    /// The daemon is stopping (draining after SIGTERM); this connection is closed. Connect
    /// again once it is back.
    public static let shuttingDown = ErrorCode(rawValue: "shutting_down")
    /// The connection has its maximum number of searches running; wait for one to end.
    public static let tooManyRequests = ErrorCode(rawValue: "too_many_requests")
    /// The client has left more than twice `limits.maxPendingOutputBytes` of earlier answers
    /// unread: this answer is refused (the connection stays open). Read the earlier ones first.
    public static let outputBacklog = ErrorCode(rawValue: "output_backlog")
    /// A request did not arrive whole within `limits.requestReadTimeoutMs` of its first byte;
    /// the connection is closed.
    public static let requestTimeout = ErrorCode(rawValue: "request_timeout")
    /// Clients together hold `limits.maxTotalPendingInputBytes` of unfinished lines: this
    /// connection's line is dropped and the connection closed. Send it again.
    public static let inputBacklog = ErrorCode(rawValue: "input_backlog")
    /// The answer passed `limits.maxAnswerBytes`; ask for fewer hits or attributes.
    public static let answerTooLarge = ErrorCode(rawValue: "answer_too_large")
    /// The operation cannot be answered over this transport (it needs the daemon's socket).
    public static let unsupportedOperation = ErrorCode(rawValue: "unsupported_operation")
    /// A write batch holds invalid documents; the message lists each and why. Nothing is written.
    public static let invalidDocument = ErrorCode(rawValue: "invalid_document")
    /// The index takes no writes (not an embedded index with a `dataDir`).
    public static let notWritable = ErrorCode(rawValue: "not_writable")
    /// `createIndex`: an index (or a store file) of that name exists already.
    public static let indexExists = ErrorCode(rawValue: "index_exists")
    /// `deleteIndex`: the index is defined in the config file (remove it there, then reload).
    public static let indexInConfig = ErrorCode(rawValue: "index_in_config")
    /// The peer may not do this (the message names the operation or index).
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// A reload failed; the previous configuration keeps serving (the message says why).
    public static let reloadFailed = ErrorCode(rawValue: "reload_failed")

    // Source outcomes.
    /// The searchable missed its deadline and was cancelled.
    public static let timeout = ErrorCode(rawValue: "timeout")
    /// The request was cancelled (by `cancel` or by the client going away).
    public static let cancelled = ErrorCode(rawValue: "cancelled")
    /// A newer request of the same session replaced this one.
    public static let superseded = ErrorCode(rawValue: "superseded")
    /// The source was not asked: its circuit breaker is open after repeated failures.
    public static let suspended = ErrorCode(rawValue: "suspended")
    /// A backend failed.
    public static let backendError = ErrorCode(rawValue: "backend_error")
    /// A network backend answered with an HTTP error status (the message gives the status).
    public static let backendHTTPError = ErrorCode(rawValue: "backend_http_error")
    /// A backend's answer could not be read (the message names the JSON path that failed).
    public static let backendBadResponse = ErrorCode(rawValue: "backend_bad_response")

    // Internal.
    /// A bug or an unexpected failure inside the daemon.
    public static let internalError = ErrorCode(rawValue: "internal_error")
}

/// An error with a stable code and a human message that names the field or position at fault.
public struct SearchError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// True for errors caused by the request rather than by the daemon or a backend.
    public var isUserError: Bool {
        switch code {
        case .timeout, .cancelled, .superseded, .suspended, .backendError, .backendHTTPError, .backendBadResponse,
            .internalError:
            return false
        default: return true
        }
    }
}
