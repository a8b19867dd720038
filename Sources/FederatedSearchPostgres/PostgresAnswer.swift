import FederatedSearchCore

/// The rows PostgreSQL returned for one search, and their conversion to `SearchResults`.
struct PostgresAnswer: Sendable {
    var hits: PGRows
    var nbHits: Int
    var facets: [(attribute: String, rows: PGRows)]

    /// Runs `plan` on `session`: the hits, the count when the page is empty (past the end, or
    /// `hitsPerPage` 0: the hits' window count is then missing), the facets.
    init(plan: PostgresQueryPlan, session: QuerySession) throws {
        hits = try session.execute(plan.hits)
        if let first = hits.rows.first {
            nbHits = first[2].flatMap { Int($0) } ?? 0
        } else if plan.offset > 0 || plan.limit == 0 {
            let total = try session.execute(plan.count).rows.first?.first ?? nil
            nbHits = total.flatMap { Int($0) } ?? 0
        } else {
            nbHits = 0
        }
        facets = []
        for f in plan.facets { facets.append((f.attribute, try session.execute(f.statement))) }
    }

    /// The results: hits with `_rankingScore` = rank ÷ best rank over all matches (1 when the
    /// query has no words to rank by), facets in request order, pages from `nbHits`.
    func results(plan: PostgresQueryPlan, query: SearchQuery) -> SearchResults {
        var out: [Hit] = []
        out.reserveCapacity(hits.rows.count)
        for row in hits.rows {
            let rank = row[1].flatMap { Double($0) } ?? 0
            let best = row[3].flatMap { Double($0) } ?? 0
            let score = best > 0 ? min(1, max(0, rank / best)) : 1
            var attributes = JSONObject()
            for (i, column) in plan.attributes.enumerated() {
                attributes.appendUnchecked(column.name, Self.json(row[4 + i], type: hits.types[4 + i]))
            }
            out.append(Hit(objectID: row[0] ?? "", attributes: attributes, rankingScore: score))
        }
        let perPage = max(1, plan.limit)
        return SearchResults(
            hits: out, nbHits: nbHits, page: query.parameters.offset == nil ? query.parameters.page : plan.offset / perPage,
            nbPages: (nbHits + perPage - 1) / perPage, hitsPerPage: plan.limit,
            facets: facets.map { f in
                FacetCounts(attribute: f.attribute, values: f.rows.rows.map { ($0[0] ?? "", $0[1].flatMap { Int($0) } ?? 0) })
            })
    }

    /// A column value as JSON, by its type: numbers, booleans, `json`/`jsonb` parsed, the rest text.
    static func json(_ text: String?, type: UInt32) -> JSONValue {
        guard let text else { return .null }
        switch type {
        case 20, 21, 23, 26, 700, 701, 1700:
            if let d = Double(text), d.isFinite { return .number(d) }
            return .string(text)
        case 16:
            return .bool(text == "t")
        case 114, 3802:
            return (try? JSONParser.parse(text)) ?? .string(text)
        default:
            return .string(text)
        }
    }
}
