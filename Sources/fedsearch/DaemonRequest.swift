import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The CLI's one-shot requests: a typed request on the client library's ``DaemonConnection``,
/// its frames handed to `onFrame` as they arrive, within a time limit.
enum DaemonRequest {
    /// Sends `operation` and returns every frame of its answer; fails the command with a
    /// clear message when the daemon cannot be reached, goes away, or takes longer than
    /// `timeoutSeconds`.
    @discardableResult
    static func run(
        _ operation: Request.Operation, socketPath: String, timeoutSeconds: Int, onFrame: (Frame) -> Void = { _ in }
    ) async -> [Frame] {
        let connection = DaemonConnection(path: socketPath)
        defer { connection.close() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(timeoutSeconds))
            connection.close()
        }
        defer { watchdog.cancel() }
        var frames: [Frame] = []
        do {
            for try await frame in try connection.send(operation) {
                frames.append(frame)
                onFrame(frame)
            }
        } catch ClientError.closed {
            fail("timed out waiting for the daemon (\(timeoutSeconds) s)")
        } catch {
            fail("\(error)")
        }
        return frames
    }

    /// Parameters from a CLI's options, checked as the daemon checks them (the error names
    /// the field, as the daemon's would).
    static func parameters(_ object: JSONObject) -> SearchParameters {
        do { return try SearchParameters.decode(object) } catch {
            fail("\(error.message) [\(error.code.rawValue)]")
        }
    }
}
