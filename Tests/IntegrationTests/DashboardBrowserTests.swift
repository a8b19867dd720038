import Foundation
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

    @Test(.enabled(if: browserInstalled, "needs chromium, chromium-driver and Selenium (make deps installs them)"))
    func typingFillsEachColumnAndAFacetNarrowsTheHits() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
        let script = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/dashboard-browser-check.py").path
        let run = try runProgram(Self.python, [script, "http://127.0.0.1:\(d.httpPort)/", "star wars", "movies", "genres",
                                               Self.artifacts.path])
        #expect(run.status == 0, "\(run.err)")
        guard case .object(let result)? = try? JSONParser.parse(run.out) else {
            Issue.record("no summary from the browser: \(run.out.prefix(500)) \(run.err.prefix(2000))")
            return
        }
        // What the socket answers for the same search, to compare the columns with.
        let c = try d.connect()
        var socketIDs: [String: [String]] = [:]
        var socketHits: [String: Int] = [:]
        for f in try c.roundTrip(["id": "s", "query": "star wars", "params": ["hitsPerPage": 8]]) {
            if case .results(_, let index, let r) = f {
                socketIDs[index] = r.hits.map(\.objectID)
                socketHits[index] = r.nbHits
            }
        }
        for viewport in ["desktop", "phone"] {
            guard case .object(let v)? = result[viewport], case .object(let before)? = v["before"],
                case .object(let after)? = v["after"]
            else {
                Issue.record("\(viewport): no columns")
                continue
            }
            // One column per index and the merged one; each index's hits are the socket's.
            #expect(Set(before.keys) == ["__merged", "movies", "products"], "\(viewport)")
            #expect(before["movies"]?.objectValue?["ids"] == .array((socketIDs["movies"] ?? []).map { .string($0) }), "\(viewport)")
            #expect(before["movies"]?.objectValue?["status"]?.stringValue?.hasPrefix("\(socketHits["movies"] ?? -1) hits") == true)
            if socketHits["products"] == 0 {
                #expect(before["products"]?.objectValue?["empty"]?.arrayValue?.first?.stringValue?.contains("No results for 'star wars' in products") == true)
            }
            // The facet value clicked narrows the movies column to its count.
            let value = v["value"]?.stringValue ?? ""
            let count = v["count"]?.intValue ?? -1
            #expect(after["movies"]?.objectValue?["status"]?.stringValue?.hasPrefix("\(count) hits") == true, "\(viewport): \(after)")
            #expect(count < (socketHits["movies"] ?? 0))
            #expect(v["refined"] == .array([.string(value)]))
            #expect(v["chips"]?.arrayValue?.first?.stringValue?.contains("genres: \(value)") == true)
            var filtered: [String] = []
            for f in try c.roundTrip(["id": "f", "query": "star wars", "indices": ["movies"],
                                      "params": ["hitsPerPage": 8, "facetFilters": [[.string("genres:\(value)")]]]]) {
                if case .results(_, _, let r) = f { filtered = r.hits.map(\.objectID) }
            }
            #expect(after["movies"]?.objectValue?["ids"] == .array(filtered.map { .string($0) }), "\(viewport)")
            #expect(FileManager.default.fileExists(atPath: Self.artifacts.appendingPathComponent("\(viewport).png").path))
        }
    }
}
