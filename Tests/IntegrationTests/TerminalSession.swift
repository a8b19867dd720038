import DaemonTestSupport
import Foundation

/// A program running in a real terminal: a detached tmux session on a server of its own, typed
/// into with send-keys and read with capture-pane.
final class TerminalSession {
    /// Whether tmux is installed (the terminal tests are skipped, and say so, without it).
    static let tmuxPath: String? = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }

    let server = "fst-\(UUID().uuidString.prefix(8))"
    let name = "t"

    /// Starts `command` (an argument list) in a `cols` × `rows` terminal.
    init(_ command: [String], cols: Int, rows: Int, environment: [String: String] = [:]) throws {
        let env = ["LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=tmux-256color"] + environment.map { "\($0.key)=\($0.value)" }
        let line = (["env"] + env + command).map(Self.quote).joined(separator: " ")
        // The server this starts outlives the command and would inherit every descriptor the
        // command has, among them the one Foundation's Process watches to learn that its child
        // ended: Process would wait for the server's end. Python starts it with every
        // descriptor above stderr closed.
        guard let path = Self.tmuxPath else { throw Failure(description: "tmux is not installed") }
        let args = [path, "-L", server, "-f", "/dev/null", "new-session", "-d", "-s", name, "-x", String(cols), "-y", String(rows), line]
        let script =
            "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:], close_fds=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)"
        let r = try runProgram(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + args)
        guard r.status == 0 else { throw Failure(description: "tmux new-session exited with \(r.status): \(r.err)") }
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Types `keys` (tmux key names: "Tab", "Space", "Escape", or literal text with `literal`).
    func send(_ keys: [String], literal: Bool = false) throws {
        try tmux(["send-keys", "-t", name] + (literal ? ["-l"] : []) + keys)
    }

    /// The screen's text, one string per line.
    func screen() throws -> [String] {
        try tmux(["capture-pane", "-t", name, "-p"]).components(separatedBy: "\n")
    }

    /// Resizes the terminal.
    func resize(cols: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", name, "-x", String(cols), "-y", String(rows)])
    }

    /// Whether the program is still running (its session ends with it).
    var isRunning: Bool { (try? tmux(["has-session", "-t", name])) != nil }

    /// Reads the screen every 50 ms until `condition` holds or `seconds` pass; returns the last
    /// screen read (for the caller's `#expect`, with the screen in the failure message).
    func waitFor(seconds: Double = 15, _ condition: ([String]) -> Bool) throws -> (ok: Bool, screen: [String]) {
        let deadline = Date().addingTimeInterval(seconds)
        var last: [String] = []
        while Date() < deadline {
            last = try screen()
            if condition(last) { return (true, last) }
            usleep(50_000)
        }
        return (condition(last), last)
    }

    @discardableResult
    private func tmux(_ args: [String]) throws -> String {
        guard let path = Self.tmuxPath else { throw Failure(description: "tmux is not installed") }
        let r = try runProgram(URL(fileURLWithPath: path), ["-L", server, "-f", "/dev/null"] + args)
        guard r.status == 0 else { throw Failure(description: "tmux \(args.first ?? ""): \(r.err)") }
        return r.out
    }

    private static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}
