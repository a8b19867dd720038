import Foundation

/// The test HTTP search service (`search_server.py` beside this file), started on 127.0.0.1
/// with a free port for one test and stopped by ``stop()`` (or when released).
public final class SearchServerProcess {
    private let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    /// The port the server listens on.
    public let port: Int

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server; `token` makes `/search` require `Authorization: Bearer <token>`.
    public init(token: String? = nil) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("search_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + (token.map { ["--token", $0] } ?? [])
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The first line is "PORT <n>".
        guard let text = readFirstLine(stdout) else { throw ServerError(description: "search_server.py exited before printing its port") }
        guard let n = text.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) }) else {
            throw ServerError(description: "unexpected first line from search_server.py: \(text)")
        }
        port = n
    }

    /// The server's counters (`requests`, `connections`, `inflight`, `disconnects`).
    public func stats() throws -> [String: Int] {
        let data = try Data(contentsOf: URL(string: "\(baseURL)/stats")!)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Int]) ?? [:]
    }

    /// Polls ``stats()`` until `condition` holds or `seconds` pass; returns whether it held.
    public func waitFor(seconds: Double = 20, _ condition: ([String: Int]) -> Bool) throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition(try stats()) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Stops the server and waits for it to exit.
    public func stop() {
        guard process.isRunning else { return }
        try? stdin.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
    }
}
