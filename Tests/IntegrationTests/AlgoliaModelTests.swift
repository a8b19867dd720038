import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Every field of the daemon's Algolia-shaped payloads has the JSON type of Algolia's API: the
/// official Algolia Python client's typed models (installed by `make deps` into .build/python)
/// decode real answers of the demo config.
@Suite(.serialized)
struct AlgoliaModelTests {
    static let python = DaemonProcess.repositoryRoot.appendingPathComponent(".build/python/bin/python")

    /// Whether the Algolia client could be installed (it comes from PyPI).
    static let clientInstalled: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return false }
        return (try? runProgram(python, ["-c", "import algoliasearch"]).status) == 0
    }()

    /// Searches that exercise every part of a response: facets and their stats, highlights,
    /// snippets, ranking info, typos, paging and filters.
    static let searches: [JSONObject] = [
        [
            "query": "star wars", "indices": ["movies"],
            "params": [
                "facets": ["*"], "hitsPerPage": 5, "attributesToSnippet": ["extract:8"], "getRankingInfo": true,
            ],
        ],
        ["query": "strar wras", "params": ["facets": ["genres", "supplier", "price"], "hitsPerPage": 3]],
        ["query": "", "indices": ["products"], "params": ["facets": ["price"], "filters": "price > 10", "page": 2]],
        ["query": "love", "params": ["hitsPerPage": 0, "facets": ["*"], "facetFilters": [["genres:Drama", "genres:Comedy"]]]],
    ]

    @Test(.enabled(if: clientInstalled, "needs the algoliasearch Python client in .build/python (make deps installs it from PyPI)"))
    func payloadsDecodeWithTheOfficialClientsModels() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let c = try d.connect()
        var lines: [String] = []
        var indices: Set<String> = []
        // The payloads as the daemon wrote them (parsed from the line, not decoded into types).
        for (i, search) in Self.searches.enumerated() {
            var request = search
            request["id"] = .string("s\(i)")
            try c.send(.object(request))
            while let line = try c.readLine() {
                guard case .object(let frame) = try JSONParser.parse(line) else { continue }
                if frame["type"] == "results", let results = frame["results"] {
                    lines.append(JSONWriter.string(["model": "search", "payload": results]))
                    indices.insert(frame["index"]?.stringValue ?? "")
                }
                if frame["type"] == "done" { break }
                if frame["type"] == "error", frame["index"] == nil {
                    Issue.record("search \(i) was refused: \(String(decoding: line, as: UTF8.self))")
                    break
                }
            }
        }
        let facetHits = try c.roundTrip([
            "id": "f", "op": "searchForFacetValues", "index": "movies", "facetName": "genres", "facetQuery": "dr",
        ])
        let payload = try #require(facetHits.last?.infoPayload("facetHits"), "no facetHits: \(facetHits)")
        lines.append(JSONWriter.string(["model": "facetValues", "payload": .object(payload)]))
        #expect(indices == ["movies", "products"])
        #expect(lines.count >= Self.searches.count + 1)

        let file = try DaemonProcess.makeDirectory().appendingPathComponent("payloads.ndjson")
        try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        let script = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/check-algolia-models.py").path
        let r = try runProgram(Self.python, [script, file.path])
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == lines.count, "\(r.out)")
    }
}
