import Foundation
import Testing
import BackendTestSupport
import FederatedSearchBackends
import FederatedSearchCore
@testable import FederatedSearchPostgres

/// The `postgres` backend against a real PostgreSQL server holding the demo products:
/// full-text matches and prefixes, pagination, facet and filter counts checked against counts
/// computed here from the NDJSON, harmless injection attempts, deadlines and cancellation.
@Suite(
    .serialized, .enabled(if: PostgresServer.isAvailable, "PostgreSQL 15 is not installed (scripts/install-deps.sh)"),
    .postgresServer)
struct PostgresBackendTests {
    let server: PostgresServer
    let products: [[String: Any]]

    init() throws {
        server = try #require(PostgresServer.current)
        products = try PostgresServer.products()
    }

    func backend(table: String = "products", _ extra: JSONObject = [:]) throws -> PostgresBackend {
        var options: JSONObject = [
            "connection": .string(server.connectionString), "table": .string(table), "id": "objectid",
            "searchable": ["title": "A", "short_description": "C"], "facets": ["supplier", "price"],
            "attributes": ["title", "short_description", "supplier", "price"],
        ]
        for e in extra { options[e.key] = e.value }
        return try PostgresBackend(BackendConfig(name: "pg", options: options, path: "searchables.pg"))
    }

    func search(_ text: String, _ params: JSONObject = [:], on b: PostgresBackend? = nil) async throws -> SearchResults {
        let b = try b ?? backend()
        return try await b.search(SearchQuery(text: text, parameters: try SearchParameters.decode(params)))
    }

    func count(where keep: ([String: Any]) -> Bool) -> Int { products.filter(keep).count }
    func supplier(_ p: [String: Any]) -> String? { p["supplier"] as? String }
    func price(_ p: [String: Any]) -> Int { p["price"] as? Int ?? 0 }
    func text(_ h: Hit) -> String {
        ((h.attributes["title"]?.stringValue ?? "") + " " + (h.attributes["short_description"]?.stringValue ?? "")).lowercased()
    }

    @Test func wordsAreAllRequiredAndRankedByTsRank() async throws {
        let r = try await search("black toner", ["hitsPerPage": 1000])
        #expect(r.nbHits > 0)
        #expect(r.hits.count == r.nbHits)
        #expect(r.hits.allSatisfy { text($0).contains("black") && text($0).contains("toner") })
        #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) })
        #expect(r.hits.first?.rankingScore == 1)
        #expect(r.hits.map(\.rankingScore) == r.hits.map(\.rankingScore).sorted(by: >))
        #expect(r.index == "pg")
        #expect(r.hits.first?.attributes["price"]?.numberValue != nil)
        let fewer = try await search("black toner cartridge", ["hitsPerPage": 0])
        #expect(fewer.nbHits <= r.nbHits)
    }

    @Test func theLastWordIsAPrefix() async throws {
        let whole = try await search("lexmark", ["hitsPerPage": 1000])
        let prefix = try await search("lexm", ["hitsPerPage": 1000])
        #expect(whole.nbHits > 0)
        #expect(prefix.nbHits >= whole.nbHits)
        #expect(prefix.hits.allSatisfy { text($0).contains("lexm") })
        let exact = try await search("lexm", ["queryType": "prefixNone"])
        #expect(exact.nbHits == 0)
    }

    @Test func emptyQueryReturnsEveryRowPageByPage() async throws {
        let first = try await search("", ["hitsPerPage": 10])
        let second = try await search("", ["hitsPerPage": 10, "page": 1])
        #expect(first.nbHits == products.count)
        #expect(first.nbPages == (products.count + 9) / 10)
        #expect(first.hits.count == 10 && second.hits.count == 10)
        #expect(Set(first.hits.map(\.objectID)).isDisjoint(with: second.hits.map(\.objectID)))
        #expect(first.hits.allSatisfy { $0.rankingScore == 1 })
        let past = try await search("", ["hitsPerPage": 10, "page": 500])
        #expect(past.hits.isEmpty)
        #expect(past.nbHits == products.count)
    }

    @Test func facetCountsMatchTheData() async throws {
        let r = try await search("", ["hitsPerPage": 0, "facets": ["supplier", "price"], "maxValuesPerFacet": 10000])
        let suppliers = Dictionary(grouping: products.compactMap(supplier), by: { $0 }).mapValues(\.count)
        let got = r.facets.first { $0.attribute == "supplier" }
        #expect(got.map { Dictionary(uniqueKeysWithValues: $0.values.map { ($0.value, $0.count) }) } == suppliers)
        #expect(got?.values.map(\.count) == got?.values.map(\.count).sorted(by: >))
        let prices = Dictionary(grouping: products.map { String(price($0)) }, by: { $0 }).mapValues(\.count)
        let gotPrices = r.facets.first { $0.attribute == "price" }
        #expect(gotPrices.map { Dictionary(uniqueKeysWithValues: $0.values.map { ($0.value, $0.count) }) } == prices)

        // With a query, counts cover every match (not only the page).
        let all = try await search("black", ["hitsPerPage": 1000])
        let page = try await search("black", ["hitsPerPage": 3, "facets": ["supplier"], "maxValuesPerFacet": 10000])
        let fromHits = Dictionary(grouping: all.hits.compactMap { $0.attributes["supplier"]?.stringValue }, by: { $0 })
            .mapValues(\.count)
        #expect(page.facets.first.map { Dictionary(uniqueKeysWithValues: $0.values.map { ($0.value, $0.count) }) } == fromHits)
        let limited = try await search("", ["hitsPerPage": 0, "facets": ["supplier"], "maxValuesPerFacet": 2])
        #expect(limited.facets.first?.values.count == 2)
    }

    @Test func filtersAreTranslated() async throws {
        let lexmark = try await search("", ["filters": "supplier:Lexmark", "hitsPerPage": 0])
        #expect(lexmark.nbHits == count { supplier($0) == "Lexmark" })
        #expect(lexmark.nbHits > 0)
        let numeric = try await search("", ["filters": "price >= 10000", "hitsPerPage": 0])
        #expect(numeric.nbHits == count { price($0) >= 10000 })
        let range = try await search("", ["filters": "price:1000 TO 5000", "hitsPerPage": 0])
        #expect(range.nbHits == count { (1000...5000).contains(price($0)) })
        let not = try await search("", ["filters": "NOT supplier:Lexmark", "hitsPerPage": 0])
        #expect(not.nbHits == count { supplier($0) != "Lexmark" })
        let or = try await search("", ["filters": "supplier:Lexmark OR supplier:Brother", "hitsPerPage": 0])
        #expect(or.nbHits == count { ["Lexmark", "Brother"].contains(supplier($0) ?? "") })
        let combined = try await search(
            "",
            [
                "facetFilters": [["supplier:Lexmark", "supplier:Brother"]], "numericFilters": ["price < 5000", "price != 0"],
                "hitsPerPage": 0,
            ])
        #expect(
            combined.nbHits
                == count {
                    ["Lexmark", "Brother"].contains(supplier($0) ?? "") && price($0) < 5000 && price($0) != 0
                })
        let withText = try await search("black", ["filters": "supplier:Brother", "hitsPerPage": 1000])
        #expect(withText.hits.allSatisfy { $0.attributes["supplier"] == "Brother" && text($0).contains("black") })
    }

    @Test func disjunctiveFacetsIgnoreTheirOwnRefinement() async throws {
        let r = try await search(
            "",
            [
                "filters": "supplier:Lexmark", "facets": ["supplier"], "disjunctiveFacets": ["supplier"], "hitsPerPage": 0,
                "maxValuesPerFacet": 10000,
            ])
        #expect(r.facets.first?.values.count == Set(products.compactMap(supplier)).count)
    }

    /// As in Algolia: a condition on a column that is not a facet matches no row, and its
    /// negation every row (a federated page sends one index's refinements to every index).
    @Test func filteringOnAColumnThatIsNotAFacetMatchesNothing() async throws {
        #expect(try await search("", ["filters": "title:x"]).nbHits == 0)
        #expect(try await search("", ["facetFilters": [["genres:Drama"]]]).nbHits == 0)
        let negated = try await search("", ["filters": "NOT title:x AND supplier:Brother", "hitsPerPage": 1000])
        #expect(negated.nbHits == products.filter { supplier($0) == "Brother" }.count)
        #expect(negated.nbHits > 0)
    }

    @Test func injectionAttemptsAreHarmless() async throws {
        let attempts = [
            "'; DROP TABLE products; --", "\\'; DROP TABLE products; --", "\" OR 1=1 --", "toner' | 'x", "a\\b ' \\",
            "toner:* & !", "$1 $2", "'",
        ]
        for attempt in attempts {
            _ = try await search(attempt)
            _ = try await search("", ["filters": .string("supplier:\(FilterExpressionQuote.quote(attempt))")])
            let r = try await search("", ["facetFilters": [.string("supplier:\(attempt)")], "hitsPerPage": 0])
            #expect(r.nbHits == 0)
        }
        let r = try await search("toner'; DROP TABLE products; --")
        #expect(r.nbHits == (try await search("toner drop table products")).nbHits)
        #expect(
            try server.sql("SELECT count(*) FROM products").trimmingCharacters(in: .whitespacesAndNewlines)
                == String(products.count))
        #expect(try await search("", ["hitsPerPage": 0]).nbHits == products.count)
    }

    @Test func deadlineCancelsTheRunningStatement() async throws {
        try server.sql(
            "CREATE OR REPLACE VIEW slow AS SELECT p.* FROM products p CROSS JOIN LATERAL (SELECT pg_sleep(0.01) WHERE p.objectid IS NOT NULL) s"
        )
        let b = try backend(table: "slow")
        let query = SearchQuery(text: "", parameters: SearchParameters(), deadline: .now + .milliseconds(300))
        let error = await #expect(throws: SearchError.self) { try await b.search(query) }
        #expect(error?.code == .timeout)
        // The server stopped the statement (PQcancel), and the connection went back to the pool.
        #expect(try waitUntilNoSlowQuery())
        #expect(b.idleConnections == 1)
    }

    @Test func cancellingTheTaskCancelsTheStatement() async throws {
        try server.sql(
            "CREATE OR REPLACE VIEW slow AS SELECT p.* FROM products p CROSS JOIN LATERAL (SELECT pg_sleep(0.01) WHERE p.objectid IS NOT NULL) s"
        )
        let b = try backend(table: "slow")
        let task = Task { try await b.search(SearchQuery(text: "")) }
        // Cancelled while its statement runs on the server.
        try #require(try waitForSlowQueries { $0 > 0 }, "no statement on the slow view started")
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try waitUntilNoSlowQuery())
    }

    @Test func connectionsAreReused() async throws {
        let b = try backend()
        for _ in 0..<5 { _ = try await search("toner", on: b) }
        #expect(b.idleConnections == 1)
    }

    @Test func anUnreachableServerIsABackendError() async throws {
        let b = try backend(["connection": "host=/nonexistent-fst dbname=fst user=postgres"])
        let error = await #expect(throws: SearchError.self) { try await search("x", on: b) }
        #expect(error?.code == .backendError)
    }

    /// Polls pg_stat_activity until no statement on the slow view is running.
    func waitUntilNoSlowQuery() throws -> Bool {
        try waitForSlowQueries { $0 == 0 }
    }

    /// Polls pg_stat_activity (every 50 ms, 5 s at most) until `condition` holds for the number
    /// of statements on the slow view running; returns whether it held.
    func waitForSlowQueries(_ condition: (Int) -> Bool) throws -> Bool {
        for _ in 0..<100 {
            let n = try server.sql(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%\"slow\"%' AND pid <> pg_backend_pid()")
            if condition(Int(n.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1) { return true }
            usleep(50_000)
        }
        return false
    }
}

/// Quotes a value for the `filters` syntax (backslash-escaping quotes and backslashes).
enum FilterExpressionQuote {
    static func quote(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
