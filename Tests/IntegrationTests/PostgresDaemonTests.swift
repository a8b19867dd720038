import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// The real daemon with a `"backend": "postgres"` searchable, against a real PostgreSQL server
/// with the demo products: results, facets and filters in frames, and a filter on a column
/// that is not a facet answered as Algolia answers it (no row), not as an error.
@Suite(
    .serialized, .enabled(if: PostgresServer.isAvailable, "PostgreSQL 15 is not installed (scripts/install-deps.sh)"),
    .postgresServer)
struct PostgresDaemonTests {
    @Test func daemonServesAPostgresTable() throws {
        let server = try #require(PostgresServer.current)
        let d = try DaemonProcess(config: [
            "searchables": [
                "shop": [
                    "backend": "postgres", "connection": .string(server.connectionString), "table": "products",
                    "id": "objectid", "searchable": ["title": "A", "short_description": "C"],
                    "facets": ["supplier", "price"], "attributes": ["title", "supplier", "price"], "timeoutMs": 5000,
                ]
            ]
        ])
        defer { d.stop() }
        let c = try d.connect()
        let frames = try c.roundTrip([
            "id": "q", "query": "black ton", "indices": ["shop"],
            "params": ["hitsPerPage": 3, "facets": ["supplier"], "filters": "supplier:Brother OR supplier:Lexmark"],
        ])
        let (status, sources) = try #require(frames.last?.doneValue, "no done: \(frames)")
        #expect(status == .ok)
        #expect(sources.first?.report.status == .ok)
        let results = try #require(
            frames.compactMap { f -> SearchResults? in
                if case .results(_, "shop", let r) = f { return r }
                return nil
            }.first)
        #expect(results.hits.count == 3)
        #expect(results.nbHits >= 3)
        #expect(results.hits.allSatisfy { ["Brother", "Lexmark"].contains($0.attributes["supplier"]?.stringValue ?? "") })
        #expect(results.hits.allSatisfy { (0...1).contains($0.rankingScore) })
        #expect(results.facets.first?.values.reduce(0) { $0 + $1.count } == results.nbHits)

        let other = try c.roundTrip(["id": "b", "query": "", "indices": ["shop"], "params": ["facetFilters": [["genres:Drama"]]]])
        #expect(!other.contains { if case .error = $0 { return true } else { return false } }, "\(other)")
        let none = other.compactMap { f -> SearchResults? in
            if case .results(_, "shop", let r) = f { return r }
            return nil
        }
        #expect(none.first?.nbHits == 0)
        #expect(try server.sql("SELECT count(*) FROM products").trimmingCharacters(in: .whitespacesAndNewlines) == "2000")
    }
}
