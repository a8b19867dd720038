import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch
import SocketTestClient

/// A live ``FederatedSearcher`` against the real daemon: its Hits, Stats, FacetList and
/// MergedHits interactors follow each acknowledged write without a search being sent, and
/// after each one show what a fresh search shows; `.emptyQuery` is live for the empty query
/// only; switching live off ends the subscription on the daemon.
@Suite(.serialized)
@MainActor
struct LiveSearcherTests {
    let films = IncrementalWriteTests()

    /// A searcher with a column per source (films, and films before 2005 as `classics`), a
    /// genre facet list and the merged list, all through the interactors.
    @MainActor
    final class Panel {
        let searcher: FederatedSearcher
        let hits: [String: HitsInteractor]
        let stats: [String: StatsInteractor]
        let genres = FacetListInteractor(selectionMode: .multiple)
        let merged = MergedHitsInteractor()
        var updates: [FederatedSearcher.LiveUpdate] = []

        init(_ connection: DaemonConnection, live: FederatedSearcher.LiveMode) {
            searcher = FederatedSearcher(transport: connection, indices: [SearcherId(index: "films")])
            var classics = SearchParameters()
            classics.filters = "year < 2005"
            searcher.addSource(SearcherId(index: "films"), name: "classics", parameters: classics)
            searcher.parameters.hitsPerPage = 5
            searcher.merge = ["strategy": "score"]
            searcher.liveMode = live
            searcher.liveIntervalMs = 0
            var hits: [String: HitsInteractor] = [:]
            var stats: [String: StatsInteractor] = [:]
            for source in searcher.sources {
                hits[source.name] = HitsInteractor()
                hits[source.name]!.connectSearcher(source)
                stats[source.name] = StatsInteractor()
                stats[source.name]!.connectSearcher(source)
            }
            (self.hits, self.stats) = (hits, stats)
            genres.connectSearcher(searcher.source("films")!, attribute: "genre")
            merged.connectSearcher(searcher)
            searcher.onLiveUpdate.subscribe(with: self) { panel, update in panel.updates.append(update) }
        }

        /// What the interactors show, to compare with another panel's.
        var shown: String {
            var lines: [String] = []
            for name in ["films", "classics"] {
                lines.append("\(name): \(stats[name]!.item?.nbHits ?? -1) " + hits[name]!.hits.map(\.objectID).joined(separator: ","))
            }
            lines.append("genre: " + genres.facets.map { "\($0.value)=\($0.count)" }.sorted().joined(separator: ","))
            lines.append("merged: \(merged.nbHits) " + merged.hits.map { "\($0.index)/\($0.hit.objectID)" }.joined(separator: ","))
            return lines.joined(separator: "\n")
        }
    }

    func eventually(seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    func openSubscriptions(_ c: SocketConnection) throws -> Int? {
        try c.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue?["open"]?.intValue
    }

    @Test func theInteractorsOfALiveSearcherFollowEachWrite() async throws {
        var rng = SystemRandomNumberGenerator()
        let initial = LiveSubscriptionTests.initialFilms(200, &rng)
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(config: films.config(dataDir: dataDir), files: ["films.ndjson": initial])
        defer { LiveSubscriptionTests.tearDown(d, dataDir: dataDir) }
        let connection = DaemonConnection(path: d.socketPath)
        defer { connection.close() }
        let writer = try d.connect()
        let live = Panel(connection, live: .emptyQuery)
        let reference = Panel(connection, live: .off)
        live.searcher.parameters.facets = ["genre"]
        reference.searcher.parameters.facets = ["genre"]
        live.searcher.search()
        #expect(await eventually { live.searcher.isShowingLive && !live.searcher.isSearching })
        _ = await reference.searcher.searchAndWait()
        #expect(live.shown == reference.shown)
        #expect(try openSubscriptions(writer) == 1)

        var searchesSent = 0
        live.searcher.onSearch.subscribe(with: live) { _, _ in searchesSent += 1 }
        for step in 0..<16 {
            let id = "f\(Int.random(in: 0..<220, using: &rng))"
            switch step % 4 {
            case 0:
                // The most voted film: first of the empty query's page, new there.
                var film = IncrementalWriteTests.film(0, &rng, id: "top\(step)")
                film["votes"] = .number(Double(10_000 + step))
                try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
            case 1:
                let film = IncrementalWriteTests.film(0, &rng, id: id)
                try films.written(writer, ["id": "w", "op": "addDocuments", "index": "films", "documents": [.object(film)]])
            case 2:
                try films.written(
                    writer,
                    [
                        "id": "w", "op": "partialUpdateDocuments", "index": "films",
                        "documents": [["objectID": .string(id), "votes": .number(Double(Int.random(in: 0...2000, using: &rng)))]],
                    ])
            default:
                try films.written(writer, ["id": "w", "op": "deleteDocuments", "index": "films", "objectIDs": [.string(id)]])
            }
            _ = await reference.searcher.searchAndWait()
            #expect(await eventually { live.shown == reference.shown }, "step \(step):\n\(live.shown)\nagainst\n\(reference.shown)")
            if step % 4 == 0 {
                #expect(live.hits["films"]!.hits.first?.objectID == "top\(step)")
                #expect(live.updates.contains { $0.source == "films" && $0.freshObjectIDs.contains("top\(step)") }, "\(live.updates)")
            }
        }
        #expect(searchesSent == 0, "the live searcher followed the writes without searching")
        #expect(live.updates.count >= 16)

        // A typed query is answered once under .emptyQuery; the empty query is live again.
        live.searcher.query = "star"
        live.searcher.search()
        #expect(await eventually { !live.searcher.isSearching && live.stats["films"]!.item?.query == "star" })
        #expect(!live.searcher.isShowingLive)
        #expect(await eventually { (try? openSubscriptions(writer)) == 0 })
        live.searcher.query = ""
        live.searcher.search()
        #expect(await eventually { live.searcher.isShowingLive && !live.searcher.isSearching })
        #expect(try openSubscriptions(writer) == 1)
        // Switched off, it ends the subscription and keeps what it shows.
        let shown = live.shown
        live.searcher.liveMode = .off
        #expect(await eventually { (try? openSubscriptions(writer)) == 0 })
        #expect(live.shown == shown)
        // Switched on again, it subscribes again at once.
        live.searcher.liveMode = .on
        #expect(await eventually { live.searcher.isShowingLive && (try? openSubscriptions(writer)) == 1 })
    }
}
