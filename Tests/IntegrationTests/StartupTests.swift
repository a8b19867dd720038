import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// Socket set-up and config validation, through the real binary's exit codes and messages.
@Suite(.serialized)
struct StartupTests {
    /// Runs a daemon binary to completion.
    func runDaemon(_ arguments: [String], binary: String = "fedsearchd") throws -> (Int32, String, String) {
        let r = try runBuilt(binary, arguments)
        return (r.status, r.out, r.err)
    }

    func writeConfig(_ text: String) throws -> (URL, String) {
        let dir = try DaemonProcess.makeDirectory()
        let url = dir.appendingPathComponent("c.json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return (dir, url.path)
    }

    @Test func secondDaemonOnTheSameSocketRefusesToStart() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let (_, configPath) = try writeConfig(
            #"{"searchables": {"s": {"backend": "test.fault"}}}"#)
        let (status, _, err) = try runDaemon(["--config", configPath, "--socket", d.socketPath], binary: "fedsearchd-faults")
        #expect(status != 0)
        #expect(err.contains("already listening"))
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }

    /// One daemon per data folder: a second one on another socket but the same dataDir refuses
    /// to start, naming the holder's pid, before it opens any store; the first keeps serving,
    /// and once it has stopped the folder is free again.
    @Test func secondDaemonOnTheSameDataFolderRefusesToStart() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let config: JSONObject = ["dataDir": .string(dataDir), "searchables": ["s": ["backend": "test.fault"]]]
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        let (dir, configPath) = try writeConfig(JSONWriter.string(.object(config)))
        let other = dir.appendingPathComponent("other.sock").path
        let (status, _, err) = try runDaemon(["--config", configPath, "--socket", other], binary: "fedsearchd-faults")
        #expect(status != 0)
        #expect(err.contains("is in use by another fedsearchd (pid \(d.pid))"), "\(err)")
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        _ = d.stop()
        let again = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        #expect(try again.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        _ = again.stop()
    }

    /// The live socket is found before any index is loaded: a second daemon whose index could
    /// not even load is refused for the socket (loading every index first once took as long
    /// as a start).
    @Test func aLiveSocketIsRefusedBeforeAnyIndexLoads() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let (_, configPath) = try writeConfig(#"{"searchables": {"m": {"data": "no-such-file.ndjson"}}}"#)
        let (status, _, err) = try runDaemon(["--config", configPath, "--socket", d.socketPath], binary: "fedsearchd-faults")
        #expect(status != 0)
        #expect(err.contains("already listening"), "\(err)")
        #expect(!err.contains("no-such-file"), "\(err)")
    }

    @Test func staleSocketFileIsReplacedAndParentFolderCreated() throws {
        let dir = try DaemonProcess.makeDirectory()
        // A socket file nobody listens on: bind, then close without unlinking.
        let stale = dir.appendingPathComponent("sub/d.sock").path
        try FileManager.default.createDirectory(atPath: dir.appendingPathComponent("sub").path, withIntermediateDirectories: true)
        close(bindUnixSocket(stale, type: Int32(SOCK_STREAM.rawValue)))
        #expect(FileManager.default.fileExists(atPath: stale))
        var config = FaultConfigs.config([("s", FaultConfigs.source())])
        config["socketMode"] = "0600"
        let configURL = dir.appendingPathComponent("c.json")
        config["socket"] = .string(stale)
        try JSONWriter.string(.object(config)).write(to: configURL, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearchd-faults")
        p.arguments = ["--config", configURL.path]
        try p.run()
        defer {
            p.terminate()
            p.waitUntilExit()
        }
        // Started as DaemonProcess starts daemons: up to 60 s on a loaded machine.
        let answered = poll(seconds: 60) {
            guard let c = try? SocketConnection(path: stale, timeoutSeconds: 5) else { return false }
            return (try? c.roundTrip(["id": "p", "op": "ping"])) != nil
        }
        #expect(answered)
        let attrs = try FileManager.default.attributesOfItem(atPath: stale)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
    }

    @Test func tooLongSocketPathIsRefused() throws {
        let (_, configPath) = try writeConfig(#"{"searchables": {"s": {"backend": "test.fault"}}}"#)
        let long = "/tmp/" + String(repeating: "x", count: 120) + ".sock"
        let (status, _, err) = try runDaemon(["--config", configPath, "--socket", long], binary: "fedsearchd-faults")
        #expect(status == 1)
        #expect(err.contains("limit is 107"))
    }

    @Test func configErrorsNameTheJSONPath() throws {
        let cases: [(String, String)] = [
            (
                #"{"searchables": {"m": {"backend": "embedded", "data": "x.ndjson", "searchableAttribute": ["t"]}}}"#,
                "searchables.m.searchableAttribute"
            ),
            (#"{"socketMode": "rw", "searchables": {"m": {}}}"#, "socketMode"),
            (#"{"searchables": {"m": {"backend": "nosuchkind"}}}"#, "searchables.m.backend"),
            (#"{"searchables": {"m": {"timeoutMs": "fast"}}}"#, "searchables.m.timeoutMs"),
            (#"{"searchable": {}}"#, "searchable"),
            (#"{"searchables": {"m": {"data": "missing.ndjson"}}}"#, "searchables.m.data"),
            (#"{"searchables": "#, "byte"),
        ]
        for (text, path) in cases {
            let (_, configPath) = try writeConfig(text)
            let (status, _, err) = try runDaemon(["--check-config", configPath])
            #expect(status == 1, "\(text)")
            #expect(err.contains(path), "\(text): stderr was \(err)")
        }
    }

    @Test func checkConfigAcceptsTheDemoConfig() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let (status, out, err) = try runDaemon(["--check-config", root.appendingPathComponent("Configs/fedsearchd.json").path])
        #expect(status == 0, "\(err)")
        #expect(out.contains("movies: embedded, 2000 documents"))
        #expect(out.contains("products: embedded, 2000 documents"))
    }

    /// A check builds durable indices in memory: it never creates a store in `dataDir`.
    @Test func checkConfigLeavesTheDataFolderAlone() throws {
        let dir = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try #"{"objectID":"1","title":"x"}"#.write(to: dir.appendingPathComponent("d.ndjson"), atomically: true, encoding: .utf8)
        let config = dir.appendingPathComponent("c.json")
        try #"{"dataDir": "state", "searchables": {"books": {"data": "d.ndjson"}}}"#.write(to: config, atomically: true, encoding: .utf8)
        let (status, out, err) = try runDaemon(["--check-config", config.path])
        #expect(status == 0, "\(err)")
        #expect(out.contains("books: embedded, 1 documents"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("state").path))
    }

    @Test func unknownArgumentIsAUsageError() throws {
        let (status, _, err) = try runDaemon(["--frobnicate"])
        #expect(status == 2)
        #expect(err.contains("unknown argument"))
    }
}
