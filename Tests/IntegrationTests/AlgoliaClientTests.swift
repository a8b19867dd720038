import DaemonTestSupport
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
    /// The daemon over HTTP on the demo's movies and products (and `extra` searchables), with a
    /// data folder when `durable`, and `keys`.
    static func daemon(
        durable: Bool, keys: [JSONValue] = [], extra: JSONObject = [:], environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        let data = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data")
        var http: JSONObject = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        if !keys.isEmpty { http["keys"] = .array(keys) }
        var searchables: JSONObject = [
            "movies": [
                "data": .string(data.appendingPathComponent("movies.ndjson").path),
                "searchableAttributes": ["title", "cast", "genres"], "attributesForFaceting": ["genres", "year"],
            ],
            "products": [
                "data": .string(data.appendingPathComponent("products.ndjson").path),
                "searchableAttributes": ["title", "name", "supplier"], "attributesForFaceting": ["supplier"],
            ],
        ]
        for e in extra { searchables[e.key] = e.value }
        var config: JSONObject = ["http": .object(http), "searchables": .object(searchables)]
        if durable { config["dataDir"] = .string(try DaemonProcess.makeDirectory().appendingPathComponent("data").path) }
        return try DaemonProcess(config: config, environment: environment)
    }

    /// Runs one of scripts/ with the official client; its JSON summary (the test stops if none).
    static func runClient(_ script: String, _ arguments: [String]) throws -> JSONObject {
        let path = DaemonProcess.repositoryRoot.appendingPathComponent("scripts/\(script)").path
        let run = try runProgram(AlgoliaModelTests.python, [path] + arguments)
        #expect(run.status == 0, "\(run.err)")
        let summary = try? JSONParser.parse(run.out)
        return try #require(summary?.objectValue, "no summary: \(run.out) \(run.err)")
    }
    @Test(
        .enabled(
            if: AlgoliaModelTests.clientInstalled,
            "needs the algoliasearch Python client in .build/python (make deps installs it from PyPI)"))
    func theOfficialClientSearchesReadsAndWrites() throws {
        let d = try Self.daemon(durable: true, extra: ["notes": ["searchableAttributes": ["title"], "attributesForFaceting": ["author"]]])
        defer { d.stop() }
        let out = try Self.runClient("algolia-client-check.py", [String(d.httpPort), "notes"])
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

    /// What InstantSearch pages and the clients' helpers need beyond search and plain writes,
    /// through the official client, sync and async (scripts/algolia-client-indices.py): a
    /// federated refinement only one index facets, browse_objects over a whole index,
    /// save_objects to a new index, set_settings/get_settings, copy (with and without scope),
    /// move, replace_all_objects, delete_index, each followed by wait_for_task.
    @Test(
        .enabled(
            if: AlgoliaModelTests.clientInstalled,
            "needs the algoliasearch Python client in .build/python (make deps installs it from PyPI)"),
        arguments: ["sync", "async"])
    func theOfficialClientsHelpersManageWholeIndices(mode: String) throws {
        let d = try Self.daemon(durable: true)
        defer { d.stop() }
        let out = try Self.runClient("algolia-client-indices.py", [String(d.httpPort), mode])
        let federated = out["federated"]?.objectValue ?? [:]
        #expect(federated["productsHits"] == 0)
        #expect(federated["allScienceFiction"] == true)
        #expect((federated["moviesHits"]?.numberValue ?? 0) > 0)
        #expect((federated["moviesHits"]?.numberValue ?? 0) < (federated["allGenresHits"]?.numberValue ?? 0))
        #expect(out["browse"] == ["count": 2000, "distinct": 2000])
        #expect(out["saveObjects"]?.objectValue?["found"] == 25)
        let settings = out["settings"]?.objectValue ?? [:]
        #expect(settings["hitsPerPage"] == 5 && settings["indexLanguages"] == ["en"] && settings["replicas"] == [])
        #expect(settings["renderingContent"] == ["facetOrdering": ["facets": ["order": ["kind"]]]])
        #expect(out["settingsApplied"] == ["hitsPerPage": 5, "firstTitle": "fresh record 0"])
        #expect(out["copy"] == ["records": 25, "scopedRecords": 0, "scopedRanking": ["asc(title)"]])
        #expect(out["move"] == ["sourceGone": true, "records": 25])
        let replaced = out["replaceAll"]?.objectValue ?? [:]
        #expect(replaced["count"] == 7)
        #expect(replaced["ids"] == .array((0..<7).map { .string("r\($0)") }))
        #expect(replaced["tmpLeft"] == [])
        #expect(replaced["rankingKept"] == ["asc(title)"])
        #expect(out["deleteIndex"] == ["gone": true])
    }

    /// Secured API keys made by the official client's generate_secured_api_key from a
    /// configured search key (scripts/algolia-secured-key.py): a key restricted by a filter, an
    /// expiry and an index sees only the filtered records (search, multi-query, browse), reaches
    /// no other index and may not read objects or write; an expired key, one restricted to
    /// other addresses, and one signed by another key are refused; forced search parameters hold.
    @Test(
        .enabled(
            if: AlgoliaModelTests.clientInstalled,
            "needs the algoliasearch Python client in .build/python (make deps installs it from PyPI)"),
        arguments: ["sync", "async"])
    func securedKeysFromTheOfficialClientSeeOnlyWhatTheyAllow(mode: String) throws {
        let parent = "parent-search-key-\(UInt32.random(in: 0...UInt32.max))"
        let d = try Self.daemon(
            durable: false, keys: [["value": ["env": "FEDSEARCH_TEST_PARENT_KEY"], "acl": ["search", "browse"]]],
            environment: ["FEDSEARCH_TEST_PARENT_KEY": parent])
        defer { d.stop() }
        let out = try Self.runClient("algolia-secured-key.py", [String(d.httpPort), parent, mode])
        let data = DaemonProcess.repositoryRoot.appendingPathComponent("Configs/data")
        // The expected counts, from the data file.
        let movies = try String(contentsOf: data.appendingPathComponent("movies.ndjson"), encoding: .utf8)
            .split(separator: "\n").compactMap { try? JSONParser.parse(String($0)).objectValue }
        let comedies = movies.filter { $0["genres"]?.arrayValue?.contains("Comedy") == true }
        let recent = comedies.filter { ($0["year"]?.numberValue ?? 0) > 1990 }
        #expect(out["comedy"] == ["nbHits": .number(Double(recent.count)), "allComedy": true, "allAfter1990": true])
        #expect(out["multi"]?.objectValue?["allComedy"] == true)
        #expect(out["browse"] == ["count": .number(Double(comedies.count)), "allComedy": true])
        for refused in ["otherIndex", "getObject", "write", "expired", "elsewhere", "forged"] {
            #expect(out[refused] == 403, "\(refused): \(out[refused].map { "\($0)" } ?? "missing")")
        }
        #expect(out["local"] == ["hitsPerPage": 3], "a search parameter of the key is in force")
        #expect(out["parentSeesAll"] == .number(Double(movies.count)))
    }
}
