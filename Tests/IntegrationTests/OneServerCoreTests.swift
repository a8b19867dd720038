import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchCore
import FederatedSearchDaemon
import FederatedSearchServer

/// One server core, several transports: the daemon's socket and the in-process driver
/// (`RequestReplay`, which answers through `ServerCore.answer` with no socket and no loop)
/// answer the same requests on the demo config with the same frames, timings aside.
@Suite(.serialized)
struct OneServerCoreTests {
    static let requests = [
        #"{"id":"a","query":"star wars","indices":["movies","products"],"params":{"facets":["genres","supplier"],"hitsPerPage":5}}"#,
        #"{"id":"b","query":"lapto","indices":["products"],"params":{"filters":"price < 100000","hitsPerPage":3,"getRankingInfo":true}}"#,
        #"{"id":"c","query":"love","indices":["movies",{"index":"movies","as":"old","params":{"filters":"year < 1950"}}],"params":{"hitsPerPage":4},"merge":{"limit":6}}"#,
        #"{"id":"d","op":"searchForFacetValues","index":"movies","facetName":"genres","facetQuery":"sci"}"#,
        #"{"id":"e","query":"x","indices":["nope"]}"#,
        #"{"id":"f","op":"getSettings","index":"movies"}"#,
        #"{"id":"g","query":"strar wras","params":{"hitsPerPage":2,"attributesToSnippet":["extract:6"]}}"#,
    ]

    /// A frame without what differs from one run to the next (timings), as canonical text;
    /// results frames sorted by index, as sources may finish in either order.
    static func canonical(_ lines: [[UInt8]]) throws -> [String] {
        var results: [String] = []
        var others: [String] = []
        for line in lines {
            guard case .object(var frame) = try JSONParser.parse(line) else { continue }
            if case .object(var r)? = frame["results"] {
                r["processingTimeMS"] = nil
                r["processingTimingsMS"] = nil
                frame["results"] = .object(r)
            }
            frame["ms"] = nil
            frame["processingTimeMS"] = nil  // a facetHits frame's
            if case .object(var sources)? = frame["sources"] {
                for e in sources {
                    guard case .object(var report) = e.value else { continue }
                    report["ms"] = nil
                    sources[e.key] = .object(report)
                }
                frame["sources"] = .object(sources)
            }
            let text = JSONWriter.string(.object(frame))
            if frame["type"] == "results" { results.append(text) } else { others.append(text) }
        }
        return results.sorted() + others
    }

    @Test func theSocketAndTheInProcessDriverAnswerAlike() async throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let configText = try String(contentsOfFile: d.configPath, encoding: .utf8)
        let config = try DaemonConfig.parse(Array(configText.utf8), baseDirectory: DaemonProcess.repositoryRoot.path)
        let catalog = try Catalog.build(config, registry: .standard)
        let c = try d.connect()
        for request in Self.requests {
            try c.sendRaw(Array((request + "\n").utf8))
            var socketLines: [[UInt8]] = []
            while let line = try c.readLine() {
                socketLines.append(line)
                guard case .object(let frame) = try JSONParser.parse(line) else { continue }
                let type = frame["type"]?.stringValue
                if type == "done" || type == "facetHits" || type == "settings" || (type == "error" && frame["index"] == nil) { break }
            }
            let replayed = await RequestReplay.answer(Array(request.utf8), catalog: catalog).map { Array($0.dropLast()) }
            let socket = try Self.canonical(socketLines)
            let core = try Self.canonical(replayed)
            #expect(socket == core, "\(request)")
            #expect(!socket.isEmpty)
        }
    }
}
