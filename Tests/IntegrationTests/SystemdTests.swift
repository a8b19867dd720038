import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import SocketTestClient

/// The systemd protocols, checked the way systemd would see them: a NOTIFY_SOCKET datagram
/// listener for readiness, reload, stop and watchdog messages, and systemd-socket-activate
/// for socket activation.
@Suite(.serialized)
struct SystemdTests {
    /// A Unix datagram socket standing in for systemd's notification socket.
    final class NotifyListener {
        let path: String
        let fd: Int32
        init() throws {
            path = "/tmp/fst-notify-\(UUID().uuidString.prefix(8)).sock"
            fd = bindUnixSocket(path, type: Int32(SOCK_DGRAM.rawValue))
            guard FileManager.default.fileExists(atPath: path) else {
                throw DaemonProcess.DaemonError(description: "bind notify socket")
            }
            var tv = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        deinit {
            close(fd)
            unlink(path)
        }
        /// Messages received within `seconds`, until one contains `until`.
        func receive(until marker: String, seconds: Double) -> [String] {
            var out: [String] = []
            let deadline = Date().addingTimeInterval(seconds)
            var buf = [UInt8](repeating: 0, count: 4096)
            while Date() < deadline {
                let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let m = String(decoding: buf[0..<n], as: UTF8.self)
                    out.append(m)
                    if m.contains(marker) { break }
                }
            }
            return out
        }
    }

    @Test func readinessReloadStoppingAndWatchdogAreNotified() throws {
        let notify = try NotifyListener()
        let d = try DaemonProcess(
            binary: "fedsearchd-faults", config: FaultConfigs.config([("a", FaultConfigs.source())]),
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"])
        defer { d.stop() }
        // Each wait ends at its message; the deadlines are for a loaded machine.
        let startup = notify.receive(until: "READY=1", seconds: 60)
        #expect(startup.contains { $0.contains("READY=1") })
        #expect(startup.contains { $0.hasPrefix("STATUS=loading") })
        // The ping answered before READY=1 was read? READY comes only after the socket serves.
        let pings = notify.receive(until: "WATCHDOG=1", seconds: 30)
        #expect(pings.contains("WATCHDOG=1"))
        d.signal(SIGHUP)
        let reload = notify.receive(until: "READY=1", seconds: 60)
        #expect(reload.contains { $0.contains("RELOADING=1") })
        #expect(reload.last?.contains("READY=1") == true)
        d.signal(SIGTERM)
        let stop = notify.receive(until: "STOPPING=1", seconds: 60)
        #expect(stop.contains { $0.contains("STOPPING=1") })
        #expect(d.waitForExit(seconds: 60) == 0)
    }

    static let socketActivate = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")

    @Test(.enabled(if: socketActivate, "needs systemd-socket-activate (the systemd package)"))
    func socketActivationServesThePassedSocket() throws {
        let dir = try DaemonProcess.makeDirectory()
        let socketPath = dir.appendingPathComponent("act.sock").path
        let configURL = dir.appendingPathComponent("c.json")
        // The config names another path: an activated daemon must not bind it.
        let unused = dir.appendingPathComponent("unused.sock").path
        try #"{"socket": "\#(unused)", "searchables": {"a": {"backend": "test.fault"}}}"#
            .write(to: configURL, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        p.arguments = [
            "-l", socketPath, DaemonProcess.binDirectory.appendingPathComponent("fedsearchd-faults").path,
            "--config", configURL.path,
        ]
        p.standardError = Pipe()
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        // Started as DaemonProcess starts daemons: up to 60 s on a loaded machine.
        var pong = false
        _ = poll(seconds: 60) {
            guard let c = try? SocketConnection(path: socketPath, timeoutSeconds: 10),
                let frames = try? c.roundTrip(["id": "p", "op": "ping"])
            else { return false }
            pong = frames.first?.type == "pong"
            return true
        }
        #expect(pong)
        #expect(!FileManager.default.fileExists(atPath: unused))
    }

    @Test(.enabled(if: socketActivate, "needs systemd-socket-activate (the systemd package)"))
    func socketActivationPassesTheHTTPListenerToo() throws {
        let dir = try DaemonProcess.makeDirectory()
        let socketPath = dir.appendingPathComponent("act.sock").path
        let port = try freeTCPPort()
        let unusedPort = try freeTCPPort()
        let configURL = dir.appendingPathComponent("c.json")
        // The config names another address: an activated daemon must not bind it.
        try
            #"{"socket": "\#(dir.appendingPathComponent("unused.sock").path)", "http": {"listen": "127.0.0.1:\#(unusedPort)"}, "searchables": {"a": {"backend": "test.fault"}}}"#
            .write(to: configURL, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        p.arguments = [
            "-l", socketPath, "-l", "127.0.0.1:\(port)", "--fdname=main:http",
            DaemonProcess.binDirectory.appendingPathComponent("fedsearchd-faults").path, "--config", configURL.path,
        ]
        p.standardError = Pipe()
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        var status = 0
        _ = poll(seconds: 60) {
            guard let c = try? HTTPTestClient(port: port, timeoutSeconds: 10),
                let r = try? c.request("POST", "/1/indexes/a/query", json: ["query": "x"])
            else { return false }
            status = r.status
            return true
        }
        #expect(status == 200)
        // The socket is served too, and nothing listens on the config's own HTTP address.
        let c = try SocketConnection(path: socketPath, timeoutSeconds: 10)
        #expect(try c.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        #expect((try? HTTPTestClient(port: unusedPort, timeoutSeconds: 2)) == nil)
    }
}

/// Journal logging: with JOURNAL_STREAM set, log entries go to the journal's native socket as
/// structured fields. Where no journald runs (this sandbox, CI), the test stands in for it by
/// listening on /run/systemd/journal/socket itself.
@Suite(.serialized)
struct JournalTests {
    static let journalPath = "/run/systemd/journal/socket"

    @Test(
        .enabled(
            if: getuid() == 0 && !FileManager.default.fileExists(atPath: JournalTests.journalPath),
            "needs root and no running journald (its socket is not replaced)"))
    func entriesCarryMessagePriorityAndRequestID() throws {
        let journalPath = Self.journalPath
        try FileManager.default.createDirectory(atPath: "/run/systemd/journal", withIntermediateDirectories: true)
        let fd = bindUnixSocket(journalPath, type: Int32(SOCK_DGRAM.rawValue))
        #expect(FileManager.default.fileExists(atPath: journalPath))
        defer {
            close(fd)
            unlink(journalPath)
        }
        var tv = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let d = try DaemonProcess(
            binary: "fedsearchd-faults", config: FaultConfigs.config([("a", FaultConfigs.source())]),
            environment: ["JOURNAL_STREAM": "0:0"])
        defer { d.stop() }
        // The harness starts the daemon at warning level; ask for debug through a reload.
        var config = FaultConfigs.config([("a", FaultConfigs.source())])
        config["logLevel"] = "debug"
        try d.rewriteConfig(config)
        let c = try d.connect()
        _ = try c.roundTrip(["id": "r", "op": "reload"])
        _ = try c.roundTrip(["id": "traced-42", "query": "x"])
        var entries: [String] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { entries.append(String(decoding: buf[0..<n], as: UTF8.self)) }
            if entries.contains(where: { $0.contains("REQUEST_ID=traced-42") && $0.contains("STATUS=") }) { break }
        }
        let traced = entries.filter { $0.contains("REQUEST_ID=traced-42") }
        #expect(traced.count >= 2, "the request's start and end are traced: \(entries)")
        #expect(traced.allSatisfy { $0.contains("SYSLOG_IDENTIFIER=fedsearchd") && $0.contains("PRIORITY=7") })
        #expect(entries.contains { $0.contains("MESSAGE=reloaded") && $0.contains("PRIORITY=6") })
    }
}
