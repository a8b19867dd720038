import Testing
import FederatedSearchCore
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

    /// Fed a chunk at a time, at every split, a file gives the documents it gives whole: strings
    /// holding `,` `]` `}` and escaped quotes, nested arrays and objects, CRLF and blank lines.
    @Test func documentLoaderGivesTheSameDocumentsAtEveryChunkSplit() throws {
        let items = [#"{"objectID":"1","t":"a, b ] } \" [","n":[1,[2,{"x":"]"}]]}"#, #"{ "objectID" : "2" , "o" : {"k":[]} }"#, "{}"]
        let array = Array(("  [" + items.joined(separator: " ,\n") + "]\n ").utf8)
        let lines = Array((items.joined(separator: "\r\n\n") + "\n").utf8)
        for text in [array, lines] {
            let whole = try DocumentLoader.parse(text, file: "f", field: "d")
            #expect(whole.count == 3)
            for split in 1..<text.count {
                var loader = DocumentLoader(file: "f", field: "d")
                try loader.feed(text[..<split])
                try loader.feed(text[split...])
                #expect(try loader.finish() == whole, "split at \(split)")
            }
        }
        #expect(try DocumentLoader.parse(Array("[ ]".utf8), file: "f", field: "d").isEmpty)
        #expect(try DocumentLoader.parse(Array(" \n".utf8), file: "f", field: "d").isEmpty)
    }

    /// A file that cannot be documents is refused at its first wrong byte, before the rest is
    /// read; each error names the line or item.
    @Test(arguments: [
        ("\u{0}\u{1}junk", "line 1: expected an object"),
        ("[1, 2]", "item 0: expected an object, got '1'"),
        ("[{\"a\":1}, \"x\"]", "item 1: expected an object"),
        ("{\"a\":1}\n[1]", "line 2: expected an object"),
    ])
    func documentLoaderRefusesAtTheFirstWrongByte(text: String, expected: String) {
        var loader = DocumentLoader(file: "f", field: "d")
        do {
            try loader.feed(Array(text.utf8)[...])
            Issue.record("the first chunk was taken: \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test(arguments: [
        ("[{\"a\":1},{\"a\":2,}]", "item 1:"),
        ("[{\"a\":1}", "not closed"),
        ("[{\"a\":1}] x", "after the array's end"),
        ("[{\"a\":1},]", "item 1:"),
    ])
    func documentLoaderNamesTheItem(text: String, expected: String) {
        do {
            _ = try DocumentLoader.parse(Array(text.utf8), file: "f", field: "d")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
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
