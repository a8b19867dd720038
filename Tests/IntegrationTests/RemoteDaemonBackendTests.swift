import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The `fedsearchd` backend: two real daemons, one federating an index of the other over its
/// Unix socket.
/// 1. the remote index's results come back under the local name, with filters and facets applied;
/// 2. a local deadline sends `cancel` to the remote, which stops its own backend call;
/// 3. an unknown remote index and an unreachable daemon are per-source errors.
@Suite(.serialized)
struct RemoteDaemonBackendTests {
    static let books = [
        #"{"objectID":"1","title":"Dune","genre":"SF","year":1965}"#,
        #"{"objectID":"2","title":"Dune Messiah","genre":"SF","year":1969}"#,
        #"{"objectID":"3","title":"Dunwich Horror","genre":"Horror","year":1929}"#,
        #"{"objectID":"4","title":"Emma","genre":"Classic","year":1815}"#,
    ].joined(separator: "\n")

    /// The remote daemon: an embedded `books` index and an http index that answers slowly.
    func remote(_ server: SearchServerProcess) throws -> DaemonProcess {
        try DaemonProcess(
            config: [
                "searchables": [
                    "books": [
                        "data": "books.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre", "year"],
                    ],
                    "slow": [
                        "backend": "http", "url": .string("\(server.baseURL)/slow?ms=60000"), "timeoutMs": 60000,
                        "response": ["hits": "results.items"],
                    ],
                ]
            ], files: ["books.ndjson": Self.books])
    }

    func source(_ socket: String, _ index: String, timeoutMs: Int = 5000) -> JSONValue {
        ["backend": "fedsearchd", "socket": .string(socket), "index": .string(index), "timeoutMs": .number(Double(timeoutMs))]
    }

    @Test func remoteIndexAnswersWithFiltersAndFacets() throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let far = try remote(server)
        defer { far.stop() }
        let near = try DaemonProcess(config: [
            "searchables": [
                "library": source(far.socketPath, "books"), "ghost": source(far.socketPath, "nope"),
                "dead": source("/tmp/fst-no-such-daemon.sock", "books"),
            ]
        ])
        defer { near.stop() }
        let c = try near.connect()
        for round in 0..<2 {  // the second round reuses the connection
            let frames = try c.roundTrip([
                "id": .string("q\(round)"), "query": "dun", "indices": ["library", "ghost", "dead"],
                "params": ["facets": ["genre"], "filters": "year > 1900 AND NOT genre:Horror"],
            ])
            let (status, sources) = try #require(frames.last?.doneValue, "no done: \(frames)")
            #expect(status == .partial)
            let byName = Dictionary(uniqueKeysWithValues: sources.map { ($0.name, $0.report) })
            #expect(byName["library"]?.status == .ok)
            #expect(byName["ghost"]?.errorCode == .backendError)
            #expect(byName["dead"]?.errorCode == .backendError)
            let results = frames.compactMap { f -> SearchResults? in
                if case .results(_, "library", let r) = f { return r }
                return nil
            }
            let r = try #require(results.first)
            #expect(r.index == "library")
            #expect(r.hits.map(\.objectID) == ["1", "2"])
            #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) && $0.rankingScore > 0 })
            #expect(r.facets.first?.values.map(\.value) == ["SF"])
            let ghost = frames.compactMap { f -> SearchError? in
                if case .error(_, "ghost"?, let e) = f { return e }
                return nil
            }
            #expect(ghost.first?.message.contains("unknown_index") == true)
        }
    }

    @Test func localDeadlineCancelsTheRemoteRequest() throws {
        let server = try SearchServerProcess()
        defer { server.stop() }
        let far = try remote(server)
        defer { far.stop() }
        let near = try DaemonProcess(config: ["searchables": ["slowRemote": source(far.socketPath, "slow", timeoutMs: 300)]])
        defer { near.stop() }
        let frames = try near.connect().roundTrip(["id": "q", "query": "x"])
        let sources = try #require(frames.last?.doneValue, "no done: \(frames)").sources
        #expect(sources.first?.report.status == .timeout)
        // The remote's own limit is 60 s: only the forwarded cancel can stop its call this soon.
        #expect(try server.waitFor { $0["disconnects"] == 1 })
    }
}
