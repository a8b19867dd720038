import FederatedSearchCore

/// Why a request to the daemon could not be sent or answered. A request the daemon refused is
/// not an error here: its `error` frame is delivered like any other frame.
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon cannot be reached (not running, or another socket path); the connection
    /// keeps trying again in the background, with back-off.
    case unavailable(String)
    /// The connection broke while the request was in flight (the daemon stopped or restarted).
    case disconnected(String)
    /// The daemon sent a line that is not a frame; the connection was dropped.
    case badFrame(String)
    /// ``DaemonConnection/close()`` was called.
    case closed

    public var description: String {
        switch self {
        case .unavailable(let m), .disconnected(let m), .badFrame(let m): return m
        case .closed: return "the connection to fedsearchd was closed"
        }
    }
}

/// The state of a ``DaemonConnection``'s link to the daemon.
public enum ConnectionState: Sendable, Equatable {
    /// No connection was needed yet.
    case idle
    /// Connected: requests are sent at once.
    case connected
    /// The daemon could not be reached or went away; the next attempt is in `retryInMs`.
    case disconnected(reason: String, retryInMs: Int)
    /// Closed by its owner; nothing more is sent.
    case closed
}

/// How long a ``DaemonConnection`` waits between attempts to reach a daemon that went away:
/// `initial`, doubling up to `maximum`, back to `initial` once connected.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration = .milliseconds(50), maximum: Duration = .seconds(2)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay after `previous`.
    func next(after previous: Duration?) -> Duration {
        guard let previous else { return initial }
        return min(maximum, previous * 2)
    }
}
