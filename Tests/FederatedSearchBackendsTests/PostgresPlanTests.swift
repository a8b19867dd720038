import Testing
import FederatedSearchBackends
import FederatedSearchCore
@testable import FederatedSearchPostgres

/// The `postgres` backend without a server: config checks with JSON paths, the tsquery built
/// from the query words, and SQL in which every value is a `$n` parameter.
struct PostgresPlanTests {
    static let options: JSONObject = [
        "connection": "host=/tmp/x dbname=shop", "table": "products", "id": "objectid",
        "searchable": ["title": "A", "short_description": "C"], "facets": ["supplier", "price"],
    ]

    func config(_ extra: JSONObject = [:]) throws(SearchError) -> PostgresConfig {
        var o = Self.options
        for e in extra { o[e.key] = e.value }
        return try PostgresConfig(BackendConfig(name: "pg", options: o, path: "searchables.pg"))
    }

    func plan(_ text: String, _ params: JSONObject = [:]) throws -> PostgresQueryPlan {
        try PostgresQueryPlan(query: SearchQuery(text: text, parameters: try SearchParameters.decode(params)), config: config())
    }

    @Test func configDefaultsAndOrder() throws {
        let c = try config()
        #expect(c.searchable.map(\.column.name) == ["title", "short_description"])
        #expect(c.searchable.map(\.weight) == ["A", "C"])
        #expect(c.attributes.map(\.name) == ["title", "short_description", "supplier", "price"])
        #expect(c.language == "english")
        #expect(c.maxConnections == 4)
    }

    @Test func configErrorsNameTheirPath() {
        let cases: [(JSONObject, String)] = [
            (["tabel": "x"], "searchables.pg.tabel: unknown field"),
            (["table": "products; DROP TABLE x"], "searchables.pg.table: 'products; DROP TABLE x' is not a plain SQL identifier"),
            (["id": "1id"], "searchables.pg.id: '1id' is not"),
            (["searchable": ["ti\"tle": "A"]], "searchables.pg.searchable.ti\"tle: 'ti\"tle' is not"),
            (["searchable": ["title": "E"]], "searchables.pg.searchable.title: expected a weight"),
            (["facets": ["ok", "bad-name"]], "searchables.pg.facets[1]: 'bad-name' is not"),
            (["language": "english'"], "searchables.pg.language: expected a text search configuration"),
            (["searchable": .object([:])], "searchables.pg.searchable: name at least one column"),
        ]
        for (extra, message) in cases {
            do {
                _ = try config(extra)
                Issue.record("accepted \(extra)")
            } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }

    @Test func missingFieldsAreReported() {
        var o = Self.options
        o["connection"] = nil
        #expect(throws: SearchError(.missingField, "searchables.pg.connection: required field is missing")) {
            _ = try PostgresConfig(BackendConfig(name: "pg", options: o, path: "searchables.pg"))
        }
    }

    @Test func tsqueryFromWords() {
        #expect(TextQuery("black toner").tsquery == "'black' & 'toner':*")
        #expect(TextQuery("a'b:*c & !d").tsquery == "'a' & 'b' & 'c' & 'd':*")
        #expect(TextQuery("été", queryType: .prefixNone).tsquery == "'été'")
        #expect(TextQuery("x y", queryType: .prefixAll).tsquery == "'x':* & 'y':*")
        #expect(TextQuery(" '; -- ").isEmpty)
    }

    @Test func valuesAreParametersNeverStatementText() throws {
        let evil = "'; DROP TABLE products; --"
        let p = try plan(
            "toner \(evil)",
            [
                "filters": .string("supplier:\"\(evil)\" AND price > 5 AND NOT price:1 TO 2"), "facets": ["supplier"],
            ])
        for s in [p.hits, p.count] + p.facets.map(\.statement) {
            #expect(!s.text.contains("DROP"))
            #expect(!s.text.contains("'; "))
        }
        #expect(p.hits.parameters.contains(evil))
        #expect(p.hits.parameters.contains("'toner' & 'DROP' & 'TABLE' & 'products':*"))
        #expect(p.hits.text.contains("(d.\"supplier\"::text = $3)"))
        #expect(p.hits.text.contains("(d.\"price\" > $4::float8)"))
        #expect(p.hits.text.contains("(NOT coalesce((d.\"price\" BETWEEN $5::float8 AND $6::float8), false))"))
        #expect(p.hits.text.hasSuffix("ORDER BY 2 DESC, 1 LIMIT $7 OFFSET $8"))
    }

    @Test func pagingAndRetrievedAttributes() throws {
        let p = try plan("", ["hitsPerPage": 5, "page": 3, "attributesToRetrieve": ["price", "nope"]])
        #expect(p.offset == 15 && p.limit == 5)
        #expect(p.attributes.map(\.name) == ["price"])
        #expect(p.hits.parameters == ["5", "15"])
        #expect(!p.hits.text.contains("fs_q"))
    }

    @Test func conditionsOnOtherColumnsAreFalse() throws {
        #expect(try plan("", ["filters": "title:x"]).hits.text.contains("FALSE"))
        #expect(try plan("", ["numericFilters": ["stock > 3"]]).hits.parameters.count == 2, "only the page's limit and offset are bound")
        let negated = try plan("", ["filters": "NOT title:x AND supplier:HP"])
        #expect(negated.hits.text.contains("(NOT coalesce(FALSE, false))"))
        #expect(negated.hits.parameters.contains("HP"))
        #expect(!(try plan("", ["tagFilters": ["new"]]).hits.text.contains("_tags")))
    }

    @Test func facetsAreFacetColumnsOnly() throws {
        let p = try plan("x", ["facets": ["*"]])
        #expect(p.facets.map(\.attribute) == ["supplier", "price"])
        let q = try plan("x", ["facets": ["title", "price", "price"]])
        #expect(q.facets.map(\.attribute) == ["price"])
    }
}
