import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchCore

/// Per-index search rights from peer credentials, checked with a real client process running
/// as another user (`setpriv`, as root).
@Suite(.serialized)
struct AccessControlTests {
    /// Running a client as another user needs root and setpriv (and python3 for raw clients).
    static let canRunAsNobody =
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

    func asNobody(_ arguments: [String]) throws -> (Int32, String, String) {
        let r = try runProgram(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups",
                DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path,
            ] + arguments)
        return (r.status, r.out, r.err)
    }

    /// A daemon with a `public` index and a `secret` one only root may search, whose socket
    /// any user can reach.
    func publicAndSecretDaemon() throws -> DaemonProcess {
        var config = FaultConfigs.config([
            ("public", FaultConfigs.source()),
            ("secret", ["backend": "test.fault", "access": ["search": ["uid:0"]]]),
        ])
        config["socketMode"] = "0666"
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: d.directory.path)
        } catch {
            d.stop()
            throw error
        }
        return d
    }

    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and python3 to run a client as another user"))
    func restrictedIndexIsHiddenFromOthers() throws {
        let d = try publicAndSecretDaemon()
        defer { d.stop() }
        // Root sees both.
        let listed = try d.connect().roundTrip(["id": "i", "op": "indices"])
        let all = try #require(listed.first?.infoPayload(), "no indices: \(listed)")
        #expect(all["indices"]?.arrayValue?.count == 2)
        // Nobody sees only the public one, is refused the secret one, and searches only public by default.
        let (listStatus, listOut, _) = try asNobody(["--socket", d.socketPath, "indices", "--json"])
        #expect(listStatus == 0)
        #expect(listOut.contains("\"public\""))
        #expect(!listOut.contains("\"secret\""))
        // To nobody, the secret index is answered exactly as a name that does not exist.
        let (status, _, err) = try asNobody(["--socket", d.socketPath, "search", "x", "--index", "secret"])
        let (missingStatus, _, missingErr) = try asNobody(["--socket", d.socketPath, "search", "x", "--index", "nosuch"])
        #expect(status == 1 && missingStatus == 1)
        #expect(err.contains("unknown_index"), "\(err)")
        #expect(err.replacingOccurrences(of: "secret", with: "nosuch") == missingErr, "\(err) / \(missingErr)")
        let (allStatus, allOut, _) = try asNobody(["--socket", d.socketPath, "search", "x", "--json"])
        #expect(allStatus == 0)
        #expect(allOut.contains("\"index\":\"public\""))
        #expect(!allOut.contains("\"index\":\"secret\""))
        // Nobody may ping but not reload.
        #expect(try asNobody(["--socket", d.socketPath, "ping"]).0 == 0)
        let (reloadStatus, _, reloadErr) = try asNobody(["--socket", d.socketPath, "reload"])
        #expect(reloadStatus == 1)
        #expect(reloadErr.contains("forbidden"))
    }

    /// Writes need the write right: by default only root and the daemon's user have it;
    /// `access.write` grants it per index. Reading stored documents needs the search right;
    /// creating and deleting indices is for root and the daemon's user only.
    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and python3 to run a client as another user"))
    func writesNeedTheWriteRight() throws {
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(
            config: [
                "dataDir": .string(dataDir), "socketMode": "0666",
                "searchables": [
                    "books": ["data": "b.ndjson"],
                    "shared": ["data": "b.ndjson", "access": ["write": ["uid:65534"]]],
                ],
            ], files: ["b.ndjson": #"{"objectID":"1","title":"one"}"#])
        defer { d.stop() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: d.directory.path)
        let s = ["--socket", d.socketPath]
        let refused = try asNobody(s + ["delete", "books", "1"])
        #expect(refused.0 == 1 && refused.2.contains("forbidden"), "\(refused)")
        let settings = try asNobody(s + ["delete-by", "books", "title:one"])
        #expect(settings.0 == 1 && settings.2.contains("forbidden"), "\(settings)")
        let read = try asNobody(s + ["get", "books", "1"])
        #expect(read.0 == 0 && read.1.contains(#""objectID":"1""#), "\(read)")
        let granted = try asNobody(s + ["delete", "shared", "1"])
        #expect(granted.0 == 0 && granted.1.contains("now holds 0 documents"), "\(granted)")
        let create = try asNobody(s + ["create-index", "mine"])
        #expect(create.0 == 1 && create.2.contains("forbidden"), "\(create)")
        // Root (the daemon's user here) may do all of it.
        let rootDelete = try runBuilt("fedsearch", s + ["delete", "books", "1"])
        #expect(rootDelete.status == 0, "\(rootDelete)")
    }

    /// A search refused as stale (its `seq` not above its session's newest) names in its
    /// `superseded` done frame only the indices the peer may search, as the search would have.
    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and python3 to run a client as another user"))
    func staleSearchNamesOnlyTheIndicesThePeerMaySearch() throws {
        let python = "/usr/bin/python3"
        let d = try publicAndSecretDaemon()
        defer { d.stop() }
        let client = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.sendall(b'{"id":"a","query":"x","session":"t","seq":5}\\n{"id":"b","query":"x","session":"t","seq":4}\\n')
            done = 0
            for line in s.makefile():
                sys.stdout.write(line)
                done += '"type":"done"' in line
                if done == 2: break
            """
        let r = try runProgram(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", client, d.socketPath,
            ])
        #expect(r.status == 0, "\(r)")
        let stale = try #require(r.out.split(separator: "\n").first { $0.contains(#""id":"b""#) })
        #expect(stale.contains(#""status":"superseded""#))
        #expect(stale.contains(#""public""#))
        #expect(!stale.contains("secret"), "\(stale)")
    }

    /// Nothing about an index nobody may not know of leaks through `stats`, a write (valid or
    /// not), a facet value search or a get: each is answered as for a name that does not exist.
    @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and python3 to run a client as another user"))
    func aHiddenIndexIsIndistinguishableFromAMissingOne() throws {
        let d = try publicAndSecretDaemon()
        defer { d.stop() }
        // Root's searches leave latency samples and a breaker for `secret`.
        _ = try d.connect().roundTrip(["id": "warm", "query": "x"])
        let client = """
            import json, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            f = s.makefile()
            def ask(req):
                s.sendall((json.dumps(req) + "\\n").encode())
                return json.loads(f.readline())
            out = {"stats": ask({"id": "s", "op": "stats"})}
            for name in ["secret", "nosuch"]:
                out[name] = [
                    ask({"id": "w", "op": "addDocuments", "index": name, "documents": [{"objectID": "1"}]}),
                    ask({"id": "b", "op": "addDocuments", "index": name, "documents": [{"title": "no id"}]}),
                    ask({"id": "g", "op": "getDocuments", "index": name, "objectIDs": ["1"]}),
                    ask({"id": "f", "op": "searchForFacetValues", "index": name, "facetName": "genre"}),
                    ask({"id": "x", "op": "deleteBy", "index": name, "params": {}}),
                ]
            print(json.dumps(out))
            """
        let r = try runProgram(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", client, d.socketPath,
            ])
        #expect(r.status == 0, "\(r)")
        let out = try #require(try JSONParser.parse(r.out.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
        let stats = JSONWriter.string(try #require(out["stats"]))
        #expect(stats.contains("\"public\""), "\(stats)")
        #expect(!stats.contains("secret"), "\(stats)")
        let secret = try #require(out["secret"]?.arrayValue)
        let missing = try #require(out["nosuch"]?.arrayValue)
        #expect(secret.count == missing.count)
        for (a, b) in zip(secret, missing) {
            #expect(a.objectValue?["error"]?.objectValue?["code"] == "unknown_index", "\(a)")
            let hidden = JSONWriter.string(a).replacingOccurrences(of: "secret", with: "nosuch")
            #expect(hidden == JSONWriter.string(b))
        }
    }

    @Test func unknownUserInAccessIsAConfigError() throws {
        let dir = try DaemonProcess.makeDirectory()
        let path = dir.appendingPathComponent("c.json").path
        try #"{"searchables": {"s": {"backend": "test.fault", "access": {"search": ["user:no-such-user-here"]}}}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try runBuilt("fedsearchd-faults", ["--check-config", path])
        #expect(r.status == 1)
        #expect(r.err.contains("searchables.s.access.search[0]"))
    }
}
