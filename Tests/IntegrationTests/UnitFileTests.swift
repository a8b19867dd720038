import DaemonTestSupport
import Foundation
import Testing

/// The shipped systemd units and system config are valid.
struct UnitFileTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func run(_ tool: String, _ arguments: [String]) throws -> (Int32, String) {
        let r = try runProgram(URL(fileURLWithPath: tool), arguments)
        return (r.status, r.out + r.err)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "systemd-analyze is not installed"))
    func unitsPassSystemdAnalyzeVerify() throws {
        // verify checks that ExecStart exists: point it at the built binary.
        let dir = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let service = try String(contentsOf: Self.root.appendingPathComponent("systemd/fedsearchd.service"), encoding: .utf8)
            .replacingOccurrences(
                of: "/usr/local/bin/fedsearchd", with: DaemonProcess.binDirectory.appendingPathComponent("fedsearchd").path)
        try service.write(to: dir.appendingPathComponent("fedsearchd.service"), atomically: true, encoding: .utf8)
        for unit in ["fedsearchd.socket", "fedsearchd-http.socket"] {
            try FileManager.default.copyItem(
                at: Self.root.appendingPathComponent("systemd/\(unit)"), to: dir.appendingPathComponent(unit))
        }
        let (status, output) = try run(
            "/usr/bin/systemd-analyze",
            [
                "verify", dir.appendingPathComponent("fedsearchd.service").path, dir.appendingPathComponent("fedsearchd.socket").path,
                dir.appendingPathComponent("fedsearchd-http.socket").path,
            ])
        #expect(status == 0, "\(output)")
    }

    @Test func serviceDeclaresTheRequiredHardening() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("systemd/fedsearchd.service"), encoding: .utf8)
        for line in [
            "Type=notify", "ExecReload=", "WatchdogSec=", "RuntimeDirectory=fedsearchd", "StateDirectory=fedsearchd",
            "User=fedsearchd", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes",
            "PrivateDevices=yes", "RestrictAddressFamilies=AF_UNIX", "SystemCallFilter=@system-service",
        ] {
            #expect(text.contains(line), "missing \(line)")
        }
        let socket = try String(contentsOf: Self.root.appendingPathComponent("systemd/fedsearchd.socket"), encoding: .utf8)
        #expect(socket.contains("ListenStream=/run/fedsearchd/fedsearchd.sock"))
        #expect(socket.contains("SocketMode=0660"))
    }

    @Test func systemConfigIsValid() throws {
        let dir = try DaemonProcess.makeDirectory()
        let text = try String(contentsOf: Self.root.appendingPathComponent("Configs/system.json"), encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/share/fedsearchd/data", with: Self.root.appendingPathComponent("Configs/data").path)
            .replacingOccurrences(of: "/var/lib/fedsearchd", with: dir.appendingPathComponent("state").path)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("system.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let (status, output) = try run(DaemonProcess.binDirectory.appendingPathComponent("fedsearchd").path, ["--check-config", path])
        #expect(status == 0, "\(output)")
    }
}
