import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The official Algolia Python client (algoliasearch 4.x, installed by `make deps` into
/// .build/python) pointed at the daemon's HTTP listener by changing only its host: every call
/// it makes is answered and decoded into its typed models (scripts/algolia-client-check.py).
@Suite(.serialized)
struct AlgoliaClientTests {
    @Test(.enabled(if: AlgoliaModelTests.clientInstalled, "needs the algoliasearch Python client in .build/python (make deps installs it from PyPI)"))
    func theOfficialClientSearchesReadsAndWrites() throws {
        let root = DaemonProcess.repositoryRoot
        let data = root.appendingPathComponent("Configs/data")
        let dir = try DaemonProcess.makeDirectory()
        let d = try DaemonProcess(config: [
            "http": ["listen": .string("127.0.0.1:\(try freeTCPPort())")],
            "dataDir": .string(dir.appendingPathComponent("data").path),
            "searchables": [
                "movies": ["data": .string(data.appendingPathComponent("movies.ndjson").path),
                           "searchableAttributes": ["title", "cast", "genres"], "attributesForFaceting": ["genres", "year"]],
                "products": ["data": .string(data.appendingPathComponent("products.ndjson").path),
                             "searchableAttributes": ["title", "name", "supplier"]],
                "notes": ["searchableAttributes": ["title"], "attributesForFaceting": ["author"]],
            ],
        ])
        defer { d.stop() }
        let run = try runProgram(AlgoliaModelTests.python, [root.appendingPathComponent("scripts/algolia-client-check.py").path,
                                                            String(d.httpPort), "notes"])
        #expect(run.status == 0, "\(run.err)")
        guard case .object(let out)? = try? JSONParser.parse(run.out) else {
            Issue.record("no summary: \(run.out) \(run.err)")
            return
        }
        // Each answer is the one the socket gives.
        let c = try d.connect()
        func socketHits(_ index: String, _ query: String, _ params: JSONObject) throws -> (Int, [String]) {
            for f in try c.roundTrip(["id": "s", "query": .string(query), "indices": [.string(index)], "params": .object(params)]) {
                if case .results(_, _, let r) = f { return (r.nbHits, r.hits.map(\.objectID)) }
            }
            return (-1, [])
        }
        let multi = out["multi"]?.arrayValue ?? []
        #expect(multi.count == 2)
        let (moviesHits, moviesIDs) = try socketHits("movies", "star wars", ["hitsPerPage": 3, "facets": ["genres"]])
        #expect(multi.first?.objectValue?["index"] == "movies")
        #expect(multi.first?.objectValue?["nbHits"] == .number(Double(moviesHits)))
        #expect(multi.first?.objectValue?["ids"] == .array(moviesIDs.map { .string($0) }))
        let (singleHits, singleIDs) = try socketHits("movies", "alien", ["hitsPerPage": 2, "facetFilters": [["genres:Science Fiction"]]])
        #expect(out["single"]?.objectValue?["nbHits"] == .number(Double(singleHits)))
        #expect(out["single"]?.objectValue?["ids"] == .array(singleIDs.map { .string($0) }))
        #expect(out["facetValues"]?.arrayValue?.first?.objectValue?["value"] == "Drama")
        #expect(out["object"]?.objectValue?["objectID"] == singleIDs.first.map { .string($0) })
        #expect(out["indices"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } == ["movies", "products", "notes"])
        let batch = out["batch"]?.objectValue ?? [:]
        #expect(batch["status"] == "published")
        #expect(batch["objectIDs"] == ["algolia-client-1"])
        #expect(batch["found"] == ["algolia-client-1"])
        let writes = out["writes"]?.objectValue ?? [:]
        #expect(writes["savedID"]?.stringValue?.isEmpty == false)
        #expect(writes["objects"] == ["Someone", .null])
        #expect(writes["customRanking"] == ["asc(title)"])
        #expect(writes["leftAfterDeletes"] == 0, "the saved object deleted, the other deleted by its author")
        #expect(writes["afterClear"] == 0)
    }
}
