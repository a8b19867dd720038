import DaemonTestSupport
import Foundation
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

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

    /// The trigger docs/CUSTOM_BACKENDS.md shows: each row inserted, updated or deleted sends
    /// its id on `channel`.
    static func installNotifyTrigger(_ server: PostgresServer, channel: String) throws {
        try server.sql(
            """
            CREATE OR REPLACE FUNCTION fedsearch_notify() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              PERFORM pg_notify(TG_ARGV[0], to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) ->> TG_ARGV[1]);
              RETURN NULL;
            END $$;
            DROP TRIGGER IF EXISTS products_fedsearch ON products;
            CREATE TRIGGER products_fedsearch AFTER INSERT OR UPDATE OR DELETE ON products
              FOR EACH ROW EXECUTE FUNCTION fedsearch_notify('\(channel)', 'objectid');
            """)
    }

    /// A subscription to a table with `listen`: a row inserted, updated or deleted with psql
    /// reaches the subscriber as an update (pushed by the trigger's NOTIFY, no polling), and
    /// still does after the listening connection was killed on the server (it reconnects).
    @Test func aNotifyingTablePushesItsChangesToSubscribers() throws {
        let server = try #require(PostgresServer.current)
        try Self.installNotifyTrigger(server, channel: "products_changed")
        defer { _ = try? server.sql("DELETE FROM products WHERE objectid LIKE 'live-%'; DROP TRIGGER products_fedsearch ON products") }
        let d = try DaemonProcess(config: [
            "searchables": [
                "shop": [
                    "backend": "postgres", "connection": .string(server.connectionString), "table": "products",
                    "id": "objectid", "searchable": ["title": "A"], "facets": ["supplier"], "attributes": ["title", "supplier", "price"],
                    "listen": "products_changed", "timeoutMs": 5000,
                ]
            ]
        ])
        defer { d.stop() }
        let c = try SocketConnection(path: d.socketPath, timeoutSeconds: 10)
        let live = LiveSubscriptionTests()
        var view = try live.subscribe(
            c, "p", ["query": "quasar", "indices": ["shop"], "params": ["hitsPerPage": 5, "facets": ["supplier"]]])
        #expect(
            view.done?["sources"]?.objectValue?["shop"]?.objectValue?["freshness"]
                == ["kind": "push", "via": "notify", "channel": "products_changed"], "\(String(describing: view.done))")
        #expect(view.answer.pages["shop"]?.hits.isEmpty == true)

        /// Reads updates until `condition` holds for the page held (10 s at most).
        func until(_ what: String, _ condition: (LivePage) -> Bool) throws {
            while !(view.answer.pages["shop"].map(condition) ?? false) {
                guard let frame = try live.line(c) else { break }
                #expect(["update", "resync"].contains(frame["type"]?.stringValue), "\(frame)")
                try view.take(frame)
            }
            #expect(view.answer.pages["shop"].map(condition) == true, "\(what): \(String(describing: view.answer.pages["shop"]))")
        }
        func ids(_ page: LivePage) -> [String] { page.hits.compactMap { $0["objectID"]?.stringValue } }

        try server.sql("INSERT INTO products (objectid, title, supplier, price) VALUES ('live-1', 'Quasar toner', 'Brother', 10)")
        try until("inserted") { ids($0) == ["live-1"] && $0.fields["nbHits"] == 1 }
        try server.sql("UPDATE products SET supplier = 'Lexmark' WHERE objectid = 'live-1'")
        try until("updated") { $0.hits.first?["supplier"] == "Lexmark" && $0.fields["facets"]?.objectValue?["supplier"] == ["Lexmark": 1] }

        // The listening connection killed on the server: the daemon listens again, and the
        // change made meanwhile arrives too.
        let killed = try server.sql(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()")
        #expect(killed.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(killed)")
        try server.sql("INSERT INTO products (objectid, title, supplier, price) VALUES ('live-2', 'Quasar drum', 'Brother', 20)")
        try until("inserted after the reconnection") { Set(ids($0)) == ["live-1", "live-2"] }
        try server.sql("DELETE FROM products WHERE objectid = 'live-1'")
        try until("deleted") { ids($0) == ["live-2"] }

        let stats = try c.roundTrip(["id": "s", "op": "stats"]).first?.infoPayload("stats")?["subscriptions"]?.objectValue
        #expect(stats?["freshness"]?.objectValue?["shop"]?.objectValue?["via"] == "notify", "\(String(describing: stats))")
    }
}
