import DaemonTestSupport
import Foundation
import Synchronization
import Testing
import FederatedSearchCore

/// The web dashboard in a real headless browser (Debian's chromium and chromium-driver, driven
/// by Selenium from .build/python; scripts/dashboard-browser-check.py) against the real daemon
/// on the demo config: typing a query fills each index's column, clicking a facet value
/// narrows that index's hits, on a desktop window and a phone-sized one. The screenshots are
/// kept in .build/test-artifacts/dashboard.
@Suite(.serialized)
struct DashboardBrowserTests {
    static let python = AlgoliaModelTests.python

    /// Whether chromium, its driver and Selenium are installed (`make deps` installs them).
    static let browserInstalled: Bool = {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: "/usr/bin/chromium"), fm.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            fm.isExecutableFile(atPath: python.path)
        else { return false }
        return (try? runProgram(python, ["-c", "import selenium"]).status) == 0
    }()

    static let artifacts = DaemonProcess.repositoryRoot.appendingPathComponent(".build/test-artifacts/dashboard")

    /// The demo's two indices and a third that answers 800 ms late (the fault-injecting daemon's
    /// `test.fault` kind), for the pending state and the layout-shift measure.
    static func daemon(keys: [JSONValue] = []) throws -> DaemonProcess {
        let data = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data")
        var http: JSONObject = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        if !keys.isEmpty { http["keys"] = .array(keys) }
        return try DaemonProcess(
            binary: "fedsearchd-faults",
            config: [
                "http": .object(http),
                "searchables": [
                    "movies": [
                        "data": .string(data.appendingPathComponent("movies.ndjson").path),
                        "searchableAttributes": ["title", "cast", "genres", "unordered(extract)"],
                        "attributesForFaceting": ["genres", "year", "cast"], "customRanking": ["desc(year)"],
                    ],
                    "products": [
                        "data": .string(data.appendingPathComponent("products.ndjson").path),
                        "searchableAttributes": ["title", "name", "supplier", "unordered(short_description)"],
                        "attributesForFaceting": ["supplier", "price", "attr_t_product_type"],
                    ],
                    "reviews": FaultConfigs.source(delayMs: 800, hits: 3),
                ],
            ], environment: ["FEDSEARCH_TEST_KEY": "dashboard-search-key", "FEDSEARCH_TEST_LIST_KEY": "list-only-key"])
    }

    @Test(.enabled(if: browserInstalled, "needs chromium, chromium-driver and Selenium (make deps installs them)"))
    func typingFillsEachColumnAndAFacetNarrowsTheHitsWithoutLayoutShift() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let script = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/dashboard-browser-check.py").path
        let run = try runProgram(
            Self.python,
            [
                script, "http://127.0.0.1:\(d.httpPort)/", "star wars", "movies", "genres", "reviews",
                Self.artifacts.path,
            ])
        #expect(run.status == 0, "\(run.err)")
        let summary = try? JSONParser.parse(run.out)
        let result = try #require(summary?.objectValue, "no summary from the browser: \(run.out.prefix(500)) \(run.err.prefix(2000))")
        // What the socket answers for the same search, to compare the columns with.
        let c = try d.connect()
        var socketIDs: [String: [String]] = [:]
        var socketHits: [String: Int] = [:]
        for f in try c.roundTrip(["id": "s", "query": "star wars", "indices": ["movies", "products"], "params": ["hitsPerPage": 8]]) {
            if case .results(_, let index, let r) = f {
                socketIDs[index] = r.hits.map(\.objectID)
                socketHits[index] = r.nbHits
            }
        }
        for viewport in ["desktop", "phone"] {
            guard case .object(let v)? = result[viewport], case .object(let before)? = v["before"],
                case .object(let after)? = v["after"], case .object(let pending)? = v["pending"]
            else {
                Issue.record("\(viewport): no columns")
                continue
            }
            // While the slow index is pending, its column shows the previous query's hits, marked.
            let slow = pending["reviews"]?.objectValue ?? [:]
            #expect(slow["stale"] == true, "\(viewport): \(slow)")
            #expect(slow["status"]?.stringValue?.contains("searching") == true, "\(viewport): \(slow)")
            #expect(slow["note"]?.stringValue?.contains("showing results for an empty search") == true, "\(viewport): \(slow)")
            #expect(pending["movies"]?.objectValue?["stale"] == false, "\(viewport)")
            #expect(
                pending["__merged"]?.objectValue?["status"]?.stringValue?.contains("waiting for reviews") == true, "\(viewport): \(pending)"
            )
            #expect(v["summaryPending"]?.stringValue?.contains("waiting for reviews") == true, "\(viewport)")
            // One column per index and the merged one; each index's hits are the socket's.
            #expect(Set(before.keys) == ["__merged", "movies", "products", "reviews"], "\(viewport)")
            #expect(before["movies"]?.objectValue?["ids"] == .array((socketIDs["movies"] ?? []).map { .string($0) }), "\(viewport)")
            #expect(before["movies"]?.objectValue?["status"]?.stringValue?.hasPrefix("\(socketHits["movies"] ?? -1) hits") == true)
            #expect(before["movies"]?.objectValue?["more"] == .bool((socketHits["movies"] ?? 0) > 8))
            #expect(before["reviews"]?.objectValue?["stale"] == false)
            if socketHits["products"] == 0 {
                #expect(
                    before["products"]?.objectValue?["empty"]?.arrayValue?.first?.stringValue?.contains(
                        "No results for 'star wars' in products") == true)
            }
            // The facet value clicked narrows the movies column to its count.
            let value = v["value"]?.stringValue ?? ""
            let count = v["count"]?.intValue ?? -1
            #expect(after["movies"]?.objectValue?["status"]?.stringValue?.hasPrefix("\(count) hits") == true, "\(viewport): \(after)")
            #expect(count < (socketHits["movies"] ?? 0))
            #expect(v["refined"] == .array([.string(value)]))
            #expect(v["chips"]?.arrayValue?.first?.stringValue?.contains("genres: \(value)") == true)
            var filtered: [String] = []
            for f in try c.roundTrip([
                "id": "f", "query": "star wars", "indices": ["movies"],
                "params": ["hitsPerPage": 8, "facetFilters": [[.string("genres:\(value)")]]],
            ]) {
                if case .results(_, _, let r) = f { filtered = r.hits.map(\.objectID) }
            }
            #expect(after["movies"]?.objectValue?["ids"] == .array(filtered.map { .string($0) }), "\(viewport)")
            // Numeric facets are ranges; nothing moved under the user (cumulative layout shift).
            #expect(v["ranges"]?.arrayValue?.contains("movies.year") == true, "\(viewport): \(v["ranges"].map { "\($0)" } ?? "")")
            let cls = v["cls"]?.numberValue ?? 1
            #expect(cls < 0.1, "\(viewport): cumulative layout shift \(cls): \(v["shifts"].map { "\($0)" } ?? "")")
            for shot in [viewport, "\(viewport)-pending"] {
                #expect(FileManager.default.fileExists(atPath: Self.artifacts.appendingPathComponent("\(shot).png").path))
            }
        }
        // The phone layout names the indices in tabs.
        #expect(result["phone"]?.objectValue?["tabs"]?.arrayValue?.count == 4)
    }

    /// A key given once (in the address or the Key field) is kept in the browser's storage and
    /// taken out of the address; a key that may search but not list indices or read settings
    /// gets every index's column all the same (from the first answer).
    @Test(.enabled(if: browserInstalled, "needs chromium, chromium-driver and Selenium (make deps installs them)"))
    func aSearchOnlyKeyIsKeptInTheBrowserAndIsEnough() throws {
        let d = try Self.daemon(keys: [
            ["value": ["env": "FEDSEARCH_TEST_KEY"], "acl": ["search"]],
            ["value": ["env": "FEDSEARCH_TEST_LIST_KEY"], "acl": ["listIndexes"]],
        ])
        defer { d.stop() }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let script = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/dashboard-browser-check.py").path
        let run = try runProgram(
            Self.python,
            [
                script, "--key", "dashboard-search-key", "http://127.0.0.1:\(d.httpPort)/",
                Self.artifacts.path,
            ])
        #expect(run.status == 0, "\(run.err)")
        let summary = try? JSONParser.parse(run.out)
        let result = try #require(summary?.objectValue, "no summary from the browser: \(run.out.prefix(500)) \(run.err.prefix(2000))")
        #expect(result["stored"] == "dashboard-search-key")
        #expect(result["address"]?.stringValue?.contains("dashboard-search-key") == false)
        let columns = result["columns"]?.objectValue ?? [:]
        #expect(Set(columns.keys) == ["__merged", "movies", "products", "reviews"], "\(columns.keys)")
        #expect(columns["movies"]?.objectValue?["ids"]?.arrayValue?.count == 8)
        #expect(result["banner"] == "")
        #expect(result["afterReload"] == ["__merged", "movies", "products", "reviews"])

        // A secured key made by the official client, restricted to movies: only its column.
        let make =
            "from algoliasearch.search.client import SearchClientSync\n"
            + "c = SearchClientSync('fedsearchd', 'dashboard-search-key')\n"
            + "print(c.generate_secured_api_key('dashboard-search-key', {'restrictIndices': ['movies'], 'filters': 'genres:Comedy'}))"
        let secured = try runProgram(Self.python, ["-c", make]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let restricted = try runProgram(Self.python, [script, "--key", secured, "http://127.0.0.1:\(d.httpPort)/", Self.artifacts.path])
        #expect(restricted.status == 0, "\(restricted.err)")
        let r = (try? JSONParser.parse(restricted.out))?.objectValue ?? [:]
        #expect(r["columns"]?.objectValue.map { Set($0.keys) } == ["__merged", "movies"], "\(restricted.out.prefix(300))")
        // A key that may not search: the page says so.
        let refused = try runProgram(
            Self.python, [script, "--key", "list-only-key", "http://127.0.0.1:\(d.httpPort)/", Self.artifacts.path])
        #expect(refused.status == 0, "\(refused.err)")
        let banner = (try? JSONParser.parse(refused.out))?.objectValue?["banner"]?.stringValue ?? ""
        #expect(banner.contains("This key may not do that") && banner.contains("may not search"), "\(banner)")
    }

    /// Live: the page opens on the empty query, live; a film imported by `fedsearch import`
    /// (no keystroke, no click) shows in its column marked fresh, and in the merged list. The
    /// daemon restarted under it, the page says the stream was lost, subscribes again by
    /// itself, and the next film imported shows too. The Live button switches it off.
    @Test(.enabled(if: browserInstalled, "needs chromium, chromium-driver and Selenium (make deps installs them)"))
    func aLivePageShowsAnImportedDocumentWithoutAKeystroke() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var config = IncrementalWriteTests().config(dataDir: dataDir)
        config["http"] = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        let d = try DaemonProcess(config: config, files: ["films.ndjson": LiveSubscriptionTests.initialFilms(40, &rng)])
        defer { LiveSubscriptionTests.tearDown(d, dataDir: dataDir) }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        var film = IncrementalWriteTests.film(0, &rng, id: "live1")
        film["title"] = "Quasar Zebra"
        film["votes"] = 100_000
        let file = d.directory.appendingPathComponent("one.ndjson")
        try JSONWriter.string(.object(film)).write(to: file, atomically: true, encoding: .utf8)
        (film["objectID"], film["title"], film["votes"]) = ("live2", "Nebula Yak", 200_000)
        let second = d.directory.appendingPathComponent("two.ndjson")
        try JSONWriter.string(.object(film)).write(to: second, atomically: true, encoding: .utf8)
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let script = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/dashboard-browser-check.py").path
        let (restart, go) = (Self.artifacts.appendingPathComponent("live-restart"), Self.artifacts.appendingPathComponent("live-go"))
        for f in [restart, go] { try? FileManager.default.removeItem(at: f) }
        // The browser's script runs meanwhile: it says when to restart the daemon.
        let outcome = ProgramOutcome()
        let arguments = [
            script, "--live", "http://127.0.0.1:\(d.httpPort)/", "films", "live1", Self.artifacts.path,
            fedsearch, "import", "films", file.path, "--socket", d.socketPath,
            "--then", "live2", fedsearch, "import", "films", second.path, "--socket", d.socketPath,
        ]
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            outcome.result.withLock { $0 = try? runProgram(Self.python, arguments) }
            done.signal()
        }
        #expect(poll(seconds: 60) { FileManager.default.fileExists(atPath: restart.path) }, "the page never went live")
        d.halt()
        Thread.sleep(forTimeInterval: 1)
        try d.start()
        #expect(FileManager.default.createFile(atPath: go.path, contents: nil))
        #expect(done.wait(timeout: .now() + 120) == .success, "the browser's script did not end")
        let run = try #require(outcome.result.withLock { $0 })
        #expect(run.status == 0, "\(run.err)")
        let result = try #require(
            (try? JSONParser.parse(run.out))?.objectValue, "no summary: \(run.out.prefix(500)) \(run.err.prefix(2000))")
        #expect(result["command"]?.objectValue?["status"] == 0, "\(result["command"].map { "\($0)" } ?? "")")
        #expect(result["liveBefore"]?.objectValue?["pressed"] == "true")
        #expect(result["liveBefore"]?.objectValue?["summary"]?.stringValue?.hasSuffix("· live") == true)
        #expect(result["before"]?.objectValue?["films"]?.objectValue?["ids"]?.arrayValue?.contains("live1") == false)
        // First in its column (the most votes) and in the merged list, both marked fresh.
        #expect(result["after"]?.objectValue?["films"]?.objectValue?["ids"]?.arrayValue?.first == "live1", "\(result["after"] ?? .null)")
        #expect(
            result["after"]?.objectValue?["films"]?.objectValue?["titles"]?.arrayValue?.first?.stringValue?.contains("Quasar Zebra") == true
        )
        // Only it: the hits it pushed down are not marked.
        let fresh = Set((result["freshIn"]?.arrayValue ?? []).compactMap(\.stringValue))
        #expect(fresh == ["__merged/live1", "films/live1"], "\(fresh)")
        #expect(result["liveAfterClick"]?.objectValue?["pressed"] == "false")
        #expect(result["liveAfterClick"]?.objectValue?["text"] == "Live")
        #expect(FileManager.default.fileExists(atPath: Self.artifacts.appendingPathComponent("live.png").path))
        // Restarted: the page said so, came back live, and showed the next film.
        let down = (result["summariesWhileDown"]?.arrayValue ?? []).compactMap(\.stringValue)
        #expect(down.contains { $0.contains("reconnecting") }, "\(down)")
        #expect(result["secondCommand"]?.objectValue?["status"] == 0)
        #expect(result["afterRestart"]?.objectValue?["films"]?.objectValue?["ids"]?.arrayValue?.first == "live2")
    }
}

/// What a program run on another thread printed, once it ended.
final class ProgramOutcome: Sendable {
    let result = Mutex<(status: Int32, out: String, err: String)?>(nil)
}
