import Foundation
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// The real daemon binary, started on a temporary socket and config for one test (the
/// integration tests' and the client library's).
public final class DaemonProcess {
    public private(set) var process = Process()
    public let directory: URL
    public let socketPath: String
    public private(set) var stderrPipe = Pipe()
    private let binary: String
    private let environment: [String: String]
    /// A command the daemon is started through (`prlimit --nofile=N:N`, which execs it: the
    /// process is the daemon's); none: the daemon itself.
    private let launcher: [String]
    /// The config file the daemon reads (tests rewrite it before a reload).
    public private(set) var configPath = ""

    /// Where the built executables are: $FEDSEARCH_BIN_DIR, else the package's .build/debug.
    public static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["FEDSEARCH_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug")
    }

    /// A fresh temporary folder (short path: socket paths are limited to 107 bytes).
    public static func makeDirectory() throws -> URL {
        let url = URL(fileURLWithPath: "/tmp/fst-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes `config` (with `socket` set to a path in a fresh folder) and data files, then
    /// starts `binary` and waits until it answers `ping`.
    public init(
        binary: String = "fedsearchd", config: JSONObject, files: [String: String] = [:],
        environment: [String: String] = [:], waitForReady: Bool = true, launcher: [String] = []
    ) throws {
        directory = try Self.makeDirectory()
        self.binary = binary
        self.environment = environment
        self.launcher = launcher
        socketPath = directory.appendingPathComponent("d.sock").path
        for (name, text) in files {
            try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        var config = config
        config["socket"] = .string(socketPath)
        let configURL = directory.appendingPathComponent("config.json")
        try JSONWriter.string(.object(config)).write(to: configURL, atomically: true, encoding: .utf8)
        configPath = configURL.path
        try launch()
        if waitForReady { try waitUntilReady() }
    }

    private func launch() throws {
        let daemon = Self.binDirectory.appendingPathComponent(binary)
        process.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? daemon
        process.arguments =
            (launcher.isEmpty ? [] : launcher.dropFirst() + [daemon.path]) + ["--config", configPath, "--log-level", "warning"]
        process.standardError = stderrPipe
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        try process.run()
    }

    /// The port of the config's HTTP listener (`http.listen` is `127.0.0.1:PORT`).
    public var httpPort: Int {
        guard let text = try? String(contentsOfFile: configPath, encoding: .utf8),
            case .object(let config)? = try? JSONParser.parse(text), case .object(let http)? = config["http"],
            let listen = http["listen"]?.stringValue, let port = listen.split(separator: ":").last.flatMap({ Int($0) })
        else { return 0 }
        return port
    }

    /// Stops the daemon (SIGKILL when `kill`, else SIGTERM) and leaves its folder as it is.
    public func halt(kill: Bool = false) {
        guard process.isRunning else { return }
        if kill { Glibc.kill(process.processIdentifier, SIGKILL) } else { process.terminate() }
        process.waitUntilExit()
    }

    /// Starts the daemon again on the same config, socket and data (after ``halt(kill:)``).
    public func start(waitForReady: Bool = true) throws {
        halt()
        process = Process()
        stderrPipe = Pipe()
        try launch()
        if waitForReady { try waitUntilReady() }
    }

    /// Rewrites the config file (keeping the socket), for reload tests.
    public func rewriteConfig(_ config: JSONObject) throws {
        var config = config
        config["socket"] = .string(socketPath)
        try JSONWriter.string(.object(config)).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Sends a signal to the daemon.
    public func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// The daemon's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Waits up to `seconds` for the daemon to exit; returns its status, or nil if it still runs.
    public func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    public func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else {
                let err = String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw DaemonError(description: "daemon exited with \(process.terminationStatus): \(err)")
            }
            if let c = try? SocketConnection(path: socketPath, timeoutSeconds: 5),
                let frames = try? c.roundTrip(["id": "ready", "op": "ping"]), frames.count == 1
            {
                return
            }
            usleep(20_000)
        }
        throw DaemonError(description: "daemon did not answer ping within 60 s")
    }

    /// A new client connection whose reads time out after `timeoutSeconds` (20 s by default).
    public func connect(timeoutSeconds: Int = 20) throws -> SocketConnection {
        try SocketConnection(path: socketPath, timeoutSeconds: timeoutSeconds)
    }

    /// Sends SIGTERM and waits for exit; returns the exit status.
    @discardableResult
    public func stop() -> Int32 {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
        return process.terminationStatus
    }

    deinit { stop() }

    public struct DaemonError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }
}

/// Reads frames until one with `id` ends its request, collecting only that request's frames.
/// `already`: frames read before (by ``barrier(_:id:)``, say); those of `id` come first, and
/// nothing more is read if they hold the request's end.
public func collect(_ connection: SocketConnection, id: String, already: [Frame] = []) throws -> [Frame] {
    var frames = already.filter { $0.id == id }
    if let last = frames.last, SocketConnection.endsRequest(last) { return frames }
    while let frame = try connection.readFrame() {
        guard frame.id == id else { continue }
        frames.append(frame)
        if SocketConnection.endsRequest(frame) { return frames }
    }
    return frames
}

/// Pings after the requests already sent on `c` and waits for the pong; returns the frames of
/// other requests that arrived first (so callers lose none of them).
///
/// A barrier, not a delay: the daemon acts on a connection's lines in order (a long line, such
/// as a big write batch, is decoded off the loop and the lines after it wait for it), so once
/// the pong is back every request sent before the ping has been read whole and acted on: a
/// search is running (it counts against `maxRunningSearches` and a drain waits for it), a
/// write batch is queued at its index's writer. A ping is not a search: it counts against no
/// limit. Throws if the connection ends, or the ping's id gets anything but a pong.
public func barrier(_ c: SocketConnection, id: String = "barrier") throws -> [Frame] {
    try c.send(["id": .string(id), "op": "ping"])
    var others: [Frame] = []
    while let frame = try c.readFrame() {
        guard frame.id == id else {
            others.append(frame)
            continue
        }
        guard case .pong = frame else { throw DaemonProcess.DaemonError(description: "barrier: \(frame) instead of a pong") }
        return others
    }
    throw DaemonProcess.DaemonError(description: "barrier: the daemon closed the connection before the pong")
}

/// Asks `condition` every 20 ms until it holds or `seconds` pass; returns whether it held. For
/// state the daemon reaches asynchronously: the deadline is generous (a loaded CI machine),
/// the normal case returns at once.
public func poll(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(20_000)
    }
}

/// Asks `stats` on `c` until `expected` holds for its payload or `seconds` pass; returns the
/// last payload (for the caller's `#expect`s), nil if an answer was not a stats frame.
public func pollStats(_ c: SocketConnection, seconds: Double = 10, until expected: (JSONObject) -> Bool) throws -> JSONObject? {
    var last: JSONObject?
    _ = try poll(seconds: seconds) {
        guard case .info(_, "stats", let payload)? = try c.roundTrip(["id": "stats", "op": "stats"]).first else {
            last = nil
            return true
        }
        last = payload
        return expected(payload)
    }
    return last
}

/// The error code of a request-level error frame, if `frame` is one.
public func errorCode(_ frame: Frame?) -> String? {
    if case .error(_, nil, let e)? = frame { return e.code.rawValue }
    return nil
}

/// Runs a program to completion; returns its exit status, stdout and stderr.
public func runProgram(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let p = Process()
    p.executableURL = executable
    p.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    try p.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

/// Runs one of the built binaries (`fedsearchd`, `fedsearch`, ...).
public func runBuilt(_ binary: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    try runProgram(DaemonProcess.binDirectory.appendingPathComponent(binary), arguments)
}

/// Binds a Unix socket of `type` at `path` (for tests that stand in for systemd's sockets).
public func bindUnixSocket(_ path: String, type: Int32) -> Int32 {
    let fd = socket(AF_UNIX, type, 0)
    _ = UnixSocketTransport.withAddress(path) { bind(fd, $0, $1) }
    return fd
}

extension DaemonProcess {
    /// The repository's root folder.
    public static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// The daemon on the demo config's indices (`Configs/fedsearchd.json`: movies and products
    /// from `Configs/data`), on a temporary socket.
    /// The demo config (Configs/fedsearchd.json on its data), with `limits` if given.
    /// The demo config, its HTTP listener moved to a free port when `http` (else none).
    public static func demo(limits: JSONObject? = nil, http: Bool = false) throws -> DaemonProcess {
        let root = repositoryRoot
        let text = try String(contentsOf: root.appendingPathComponent("Configs/fedsearchd.json"), encoding: .utf8)
        guard case .object(var config) = try JSONParser.parse(Array(text.utf8)),
            case .object(var searchables)? = config["searchables"]
        else { throw DaemonError(description: "Configs/fedsearchd.json is not the expected object") }
        for e in searchables {
            guard case .object(var s) = e.value, let data = s["data"]?.stringValue else { continue }
            s["data"] = .string(root.appendingPathComponent("Configs").appendingPathComponent(data).path)
            searchables[e.key] = .object(s)
        }
        config["searchables"] = .object(searchables)
        config["logLevel"] = nil
        if let limits { config["limits"] = .object(limits) }
        config["http"] = http ? ["listen": .string("127.0.0.1:\(try freeTCPPort())")] : nil
        return try DaemonProcess(config: config)
    }
}

/// A port on 127.0.0.1 nobody listens on now (the kernel's pick for a socket bound to port 0).
public func freeTCPPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
            bind(fd, p, length) == 0 && getsockname(fd, p, &length) == 0
        }
    }
    guard bound else { throw DaemonProcess.DaemonError(description: "no free TCP port: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}
