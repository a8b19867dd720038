/// The wire protocol: NDJSON requests and frames over a stream socket.
///
/// This module owns the request and frame types and the line framing. It depends only on the
/// core model, so both the daemon and the client use it and it is testable without a socket.
public enum ProtocolVersion {
    /// The protocol version this build speaks, reported by `ping`.
    public static let current = 1
    /// The default limit on one request line, in bytes.
    public static let defaultMaxLineBytes = 1 << 20
}

/// The version of this build of FederatedSearch (the daemon reports it in `pong`; both
/// programs print it with `--version`).
public enum FederatedSearchVersion {
    public static let string = "0.1.0"
}
