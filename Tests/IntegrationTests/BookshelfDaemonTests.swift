import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The worked example of docs/CUSTOM_BACKENDS.md: `fedsearchd-bookshelf` registers the
/// `example.bookshelf` kind, and a config names it beside the built-in ones.
@Suite(.serialized)
struct BookshelfDaemonTests {
    /// The config and books shipped beside the example (what docs/CUSTOM_BACKENDS.md runs)
    /// load: both searchables are built from them.
    @Test func theShippedExampleConfigLoads() throws {
        let config = DaemonProcess.repositoryRoot.appendingPathComponent("Examples/bookshelf-daemon/bookshelf.json").path
        let r = try runBuilt("fedsearchd-bookshelf", ["--check-config", config])
        #expect(r.status == 0, "\(r.err)")
        #expect((r.out + r.err).contains("books"), "\(r.out)\(r.err)")
    }

    @Test func swiftCodedBackendIsNamedInTheConfig() throws {
        let books = [
            #"{"objectID":"1","title":"Dune","author":"Frank Herbert","genre":"SF","year":1965}"#,
            #"{"objectID":"2","title":"Emma","author":"Jane Austen","genre":"Classic","year":1815}"#,
        ].joined(separator: "\n")
        let d = try DaemonProcess(
            binary: "fedsearchd-bookshelf",
            config: [
                "searchables": ["books": ["backend": "example.bookshelf", "books": "books.ndjson"]]
            ], files: ["books.ndjson": books])
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip(["id": "q", "query": "dun", "params": ["facets": ["genre"]]])
        try #require(frames.first?.resultsIndex == "books", "unexpected \(frames)")
        let r = try #require(frames.first?.resultsValue, "unexpected \(frames)")
        #expect(r.hits.map(\.objectID) == ["1"])
        #expect(r.facets.first?.values.map(\.value) == ["SF"])
        let info = try #require(try c.roundTrip(["id": "i", "op": "indices"]).first)
        #expect(String(decoding: info.line(), as: UTF8.self).contains("\"backend\":\"example.bookshelf\""))
    }
}
