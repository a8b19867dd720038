import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore

/// A client that opens connections until the daemon runs out of descriptors (the daemon under
/// `prlimit --nofile=96:96`): the listeners pause and shed instead of spinning on EMFILE (the
/// daemon's CPU stays low, its log says so once a second at most), and once the flood's
/// connections close, socket and HTTP clients are served again.
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "needs prlimit (util-linux)"))
struct DescriptorLimitTests {
    /// The daemon's CPU time so far, in seconds (utime + stime of /proc/PID/stat).
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15 (1-based, from the pid).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func connectUnix(_ path: String) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = b }
        }
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if ok != 0 {
            close(fd)
            return -1
        }
        return fd
    }

    @Test func runningOutOfDescriptorsPausesAcceptingInsteadOfSpinning() throws {
        let d = try DaemonProcess(
            binary: "fedsearchd-faults",
            config: ["http": ["listen": .string("127.0.0.1:\(try freeTCPPort())")], "searchables": ["s": FaultConfigs.source()]],
            launcher: ["/usr/bin/prlimit", "--nofile=96:96"])
        defer { d.stop() }
        // More connections than descriptors, on both transports, held open.
        var flood: [Int32] = []
        var httpFlood: [HTTPTestClient] = []
        for i in 0..<240 {
            if i % 2 == 1 {
                if let c = try? HTTPTestClient(port: d.httpPort, timeoutSeconds: 1) { httpFlood.append(c) }
            } else {
                let fd = Self.connectUnix(d.socketPath)
                if fd >= 0 { flood.append(fd) }
            }
        }
        // The flood's accepts cost CPU; the window measured starts after them (the daemon, out
        // of descriptors, cannot answer a stats request to say when it is done).
        Thread.sleep(forTimeInterval: 0.3)
        let before = Self.cpuSeconds(d.pid)
        Thread.sleep(forTimeInterval: 2)
        let spent = Self.cpuSeconds(d.pid) - before
        #expect(spent < 0.5, "the daemon spent \(spent) s of CPU in 2 s with its descriptors exhausted")
        // While the flood holds its connections: HTTP connections count from their accept, under
        // limits fitted below the descriptor limit, so a new HTTP client gets a descriptor, and
        // the oldest silent connection makes room for it.
        let during = try HTTPTestClient(port: d.httpPort, timeoutSeconds: 5).request("POST", "/1/indexes/s/query", json: ["query": "x"])
        #expect(during.status == 200, "\(during.text)")
        for fd in flood { close(fd) }
        httpFlood.removeAll()
        // Served again once the flood is gone.
        var served = false
        for _ in 0..<50 where !served {
            Thread.sleep(forTimeInterval: 0.1)
            if let c = try? d.connect(timeoutSeconds: 2), let pong = try? c.roundTrip(["id": "p", "op": "ping"]) {
                served = pong.first?.type == "pong"
            }
        }
        #expect(served, "a socket client is served again")
        #expect(try d.http().request("POST", "/1/indexes/s/query", json: ["query": "x"]).status == 200)
        _ = d.stop()
        let log = String(decoding: d.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n").filter { $0.contains("accept failed") }
        #expect(!lines.isEmpty, "the log says it ran out: \(log.suffix(500))")
        #expect(lines.count <= 6, "one line a second at most: \(lines.count)")
        #expect(!log.contains("Error from accept() call"))
    }
}
