import Testing
import FederatedSearchCore
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

/// Config parsing: defaults, paths in errors, unknown keys, and building the catalog.
struct DaemonConfigTests {
    func parse(_ s: String) throws(SearchError) -> DaemonConfig { try DaemonConfig.parse(Array(s.utf8), baseDirectory: "/etc/x") }

    @Test func defaultsAndRelativePaths() throws {
        let c = try parse(#"{"searchables":{"m":{"data":"d.ndjson"}}}"#)
        #expect(c.socketPath == "/tmp/fedsearchd/fedsearchd.sock")
        #expect(c.socketMode == 0o660)
        #expect(c.maxLineBytes == 1 << 20)
        #expect(c.searchables.map(\.kind) == ["embedded"])
        #expect(c.resolve("d.ndjson") == "/etc/x/d.ndjson")
        #expect(c.resolve("/abs") == "/abs")
        #expect(c.settleAfterMs == 2000)
        #expect(try parse(#"{"searchables":{"m":{}},"settleAfterMs":0}"#).settleAfterMs == 0)
    }

    @Test(arguments: [
        (#"{"searchables":{}}"#, "searchables: must not be empty"),
        (#"{"searchables":{"bad name":{}}}"#, "searchables.bad name"),
        (#"{"searchables":{"m":[]}}"#, "searchables.m: expected an object"),
        (#"{"searchables":{"m":{}},"sokcet":"x"}"#, "sokcet: unknown field"),
        (#"{"searchables":{"m":{}},"maxLineBytes":10}"#, "maxLineBytes"),
        (#"{"searchables":{"m":{}},"logLevel":"loud"}"#, "logLevel"),
        (#"{"searchables":{"m":{}},"settleAfterMs":-1}"#, "settleAfterMs"),
        (#"{"searchables":{"m":{}},"settleAfterMs":"soon"}"#, "settleAfterMs"),
    ])
    func errorsNameTheField(text: String, expected: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(text): \(error.message)")
        }
    }

    @Test func documentLoaderReportsTheLine() {
        let ndjson = Array("{\"objectID\":\"1\"}\n\n{\"objectID\":2,}\n".utf8)
        do {
            _ = try DocumentLoader.parse(ndjson, file: "f.ndjson", field: "searchables.m.data")
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("'f.ndjson' line 3"))
        }
        let array = Array("[{\"objectID\":\"1\"},{\"objectID\":\"2\"}]".utf8)
        #expect((try? DocumentLoader.parse(array, file: "f.json", field: "d"))?.count == 2)
    }

    @Test func catalogBuildsEmbeddedIndicesAndRejectsUnknownKinds() throws {
        var registry = BackendRegistry()
        registry.register("embedded") { ctx in try EmbeddedBackend.make(ctx) }
        let bad = try parse(#"{"searchables":{"m":{"backend":"nope"}}}"#)
        #expect(throws: SearchError.self) { try Catalog.build(bad, registry: registry) }
    }
}

/// The connection limits fit under the descriptor limit, with room kept for the daemon's own files.
struct DescriptorBudgetTests {
    @Test func limitsThatFitAreKept() {
        let (limits, warning) = DescriptorBudget.fit(DaemonConfig.Limits(), descriptorLimit: 524_288, transports: 2, indices: 3)
        #expect(limits == DaemonConfig.Limits())
        #expect(warning == nil)
    }

    @Test func limitsPastTheDescriptorLimitAreLoweredWithAWarning() {
        // 1,024 descriptors, two transports, two indices: (1024 - 64 - 32) / 2 = 464 each.
        let (limits, warning) = DescriptorBudget.fit(DaemonConfig.Limits(), descriptorLimit: 1024, transports: 2, indices: 2)
        #expect(limits.maxConnections == 464)
        #expect(limits.maxConnectionsPerAddress == 464)
        #expect(warning?.contains("LimitNOFILE") == true)
        #expect(warning?.contains("1024 to 464") == true, "\(warning ?? "")")
        // A limit too small for the reserve still leaves one connection.
        #expect(DescriptorBudget.fit(DaemonConfig.Limits(), descriptorLimit: 10, transports: 1, indices: 0).0.maxConnections == 1)
    }
}
