import DaemonTestSupport
import FederatedSearchCore
import SocketTestClient
import Testing

extension DaemonProcess {
    /// A new HTTP connection to the daemon's listener.
    func http() throws -> HTTPTestClient { try HTTPTestClient(port: httpPort) }
}

/// Waits (as ``poll(seconds:_:)``) until `condition` holds; if it does not within `seconds`,
/// the test stops with an issue saying that `what` did not happen. Instead of a fixed sleep
/// for state the daemon reaches asynchronously.
func waitUntil(
    _ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () throws -> Bool
) throws {
    let held = try poll(seconds: seconds, condition)
    try #require(held, "\(what): not within \(seconds) s", sourceLocation: sourceLocation)
}

/// Asks `stats` on `c` until `condition` holds for its payload, and returns that payload; if it
/// does not within `seconds`, the test stops with an issue saying that `what` did not happen
/// (with the last payload).
@discardableResult
func waitForStats(
    _ c: SocketConnection, _ what: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation,
    until condition: (JSONObject) -> Bool
) throws -> JSONObject {
    let last = try pollStats(c, seconds: seconds, until: condition)
    let held = last.map(condition) ?? false
    try #require(held, "\(what): not within \(seconds) s (stats: \(String(describing: last)))", sourceLocation: sourceLocation)
    return last ?? [:]
}
