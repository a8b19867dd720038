import FederatedSearchBackends
import FederatedSearchCore

/// The SQL statements for one search: the page of hits, the total when the page is past the
/// end, and one `GROUP BY` per requested facet. Pure: built and checked before any I/O.
///
/// Every statement reads from the same derived table `d`: the table's rows with, when the
/// query has words, the weighted document vector `fs_doc` and the query `fs_q`:
///
/// ```sql
/// FROM (SELECT t.*, setweight(to_tsvector($1::regconfig, coalesce(t."title"::text, '')), 'A')
///                || ... AS fs_doc, to_tsquery($1::regconfig, $2) AS fs_q
///       FROM "products" t) d
/// WHERE (numnode(d.fs_q) = 0 OR d.fs_doc @@ d.fs_q) AND <filter>
/// ```
///
/// (`numnode = 0` when the configuration dropped every word, stop words only: all rows match.)
public struct PostgresQueryPlan: Sendable, Equatable {
    /// The hits: objectID, `ts_rank`, the number of matches and the best rank over all
    /// matches (window functions, evaluated before `LIMIT`), then the attribute columns.
    public var hits: SQLStatement
    /// `count(*)` of the matches, for when the page is past the last match.
    public var count: SQLStatement
    /// Per requested facet column: its values and counts over all matches.
    public var facets: [(attribute: String, statement: SQLStatement)]
    /// The attribute columns selected after the first four columns of `hits`.
    public var attributes: [SQLIdentifier]
    /// The first hit returned and the number of hits asked for.
    public var offset: Int, limit: Int

    /// Builds the statements (a filter condition on a column that is not a facet matches no row).
    public init(query: SearchQuery, config: PostgresConfig) throws(SearchError) {
        let p = query.parameters
        let text = TextQuery(query.text, queryType: p.queryType)
        offset = p.offset ?? p.page * p.hitsPerPage
        limit = p.length ?? p.hitsPerPage
        attributes = config.attributes
        if let retrieve = p.attributesToRetrieve, !retrieve.contains("*") {
            attributes = attributes.filter { retrieve.contains($0.name) }
        }

        var h = SQLStatement()
        let source = try Self.matches(text, filter: p.filter, config: config, binding: &h)
        let rank = text.isEmpty ? "0::float4" : "ts_rank(d.fs_doc, d.fs_q)"
        let columns =
            ["d.\(config.id.quoted)::text", "\(rank) AS fs_rank", "count(*) OVER ()", "max(\(rank)) OVER ()"]
            + attributes.map { "d.\($0.quoted)" }
        h.text =
            "SELECT \(columns.joined(separator: ", ")) \(source) ORDER BY 2 DESC, 1 LIMIT \(h.bind(Double(limit))) OFFSET \(h.bind(Double(offset)))"
        hits = h

        var c = SQLStatement()
        c.text = "SELECT count(*) " + (try Self.matches(text, filter: p.filter, config: config, binding: &c))
        count = c

        facets = []
        let requested = p.facets.contains("*") ? config.facets.map(\.name) : p.facets
        let disjunctive = Set(p.disjunctiveFacets)
        for attribute in requested {
            guard let column = config.facet(named: attribute), !facets.contains(where: { $0.attribute == attribute }) else {
                continue
            }
            // A disjunctive facet counts its values without its own refinements.
            let filter =
                disjunctive.contains(attribute)
                ? FacetRefinements.filter(p.filter, removingRefinementsOf: attribute) : p.filter
            var f = SQLStatement()
            let from = try Self.matches(text, filter: filter, config: config, binding: &f)
            let order = p.sortFacetValuesBy == .alpha ? "1" : "2 DESC, 1"
            f.text =
                "SELECT d.\(column.quoted)::text, count(*) \(from) AND d.\(column.quoted) IS NOT NULL GROUP BY 1 ORDER BY \(order) LIMIT \(f.bind(Double(p.maxValuesPerFacet)))"
            facets.append((attribute, f))
        }
    }

    /// `FROM ... WHERE ...` selecting the rows that match `text` and `filter`.
    static func matches(
        _ text: TextQuery, filter: FilterExpression?, config: PostgresConfig, binding s: inout SQLStatement
    ) throws(SearchError) -> String {
        var conditions: [String] = []
        let from: String
        if text.isEmpty {
            from = "FROM \(config.table.quoted) d"
        } else {
            let language = s.bind(config.language)
            let vector = config.searchable.map { column, weight in
                "setweight(to_tsvector(\(language)::regconfig, coalesce(t.\(column.quoted)::text, '')), '\(weight)')"
            }.joined(separator: " || ")
            from =
                "FROM (SELECT t.*, \(vector) AS fs_doc, to_tsquery(\(language)::regconfig, \(s.bind(text.tsquery))) AS fs_q FROM \(config.table.quoted) t) d"
            conditions.append("(numnode(d.fs_q) = 0 OR d.fs_doc @@ d.fs_q)")
        }
        if let filter { conditions.append(FilterTranslator.condition(filter, config: config, binding: &s)) }
        if conditions.isEmpty { conditions.append("TRUE") }
        return "\(from) WHERE \(conditions.joined(separator: " AND "))"
    }

    public static func == (a: PostgresQueryPlan, b: PostgresQueryPlan) -> Bool {
        a.hits == b.hits && a.count == b.count && a.attributes == b.attributes && a.offset == b.offset
            && a.limit == b.limit
            && a.facets.elementsEqual(b.facets) { $0.attribute == $1.attribute && $0.statement == $1.statement }
    }
}
