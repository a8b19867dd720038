import FederatedSearchBackends
import FederatedSearchCore

/// The `postgres` backend: a table of a PostgreSQL database, searched with its full-text
/// search (see ``PostgresConfig`` for the options and ``PostgresQueryPlan`` for the SQL).
///
/// Each search builds its statements first (a filter condition on a column that is not a
/// facet is `FALSE`: it matches no row), then runs them on one pooled connection on a
/// dedicated thread: the page of hits, the total if the page is past the end, one `GROUP BY`
/// per facet. Cancellation and the deadline stop the running statement with `PQcancel`.
/// Failures are source errors: `backend_error` (connection or SQL error, with its SQLSTATE),
/// `timeout`.
public final class PostgresBackend: Searchable {
    /// The searchable's name.
    public let name: String
    /// The decoded options.
    public let config: PostgresConfig
    private let pool: ConnectionPool

    /// Builds the backend from its config options (no connection is made until the first search).
    public convenience init(_ config: BackendConfig) throws(SearchError) {
        self.init(name: config.name, config: try PostgresConfig(config))
    }

    public init(name: String, config: PostgresConfig) {
        self.name = name
        self.config = config
        pool = ConnectionPool(connectionString: config.connection, maxIdle: config.maxConnections)
    }

    /// Idle pooled connections (for tests).
    var idleConnections: Int { pool.idleCount }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: "postgres", documentCount: nil, searchableAttributes: config.searchable.map(\.column.name),
            attributesForFaceting: config.facets.map(\.name))
    }

    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        let plan: PostgresQueryPlan
        do { plan = try PostgresQueryPlan(query: query, config: config) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
        let start = ContinuousClock.now
        let answer: PostgresAnswer
        do {
            answer = try await QueryThread.run(pool: pool, deadline: query.deadline) { session in
                try PostgresAnswer(plan: plan, session: session)
            }
        } catch let e as SearchError {
            throw SearchError(e.code, "\(name): \(e.message)")
        }
        var results = answer.results(plan: plan, query: query)
        let elapsed = (ContinuousClock.now - start).components
        results.processingTimeMS = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
        results.index = name
        results.query = query.text
        results.params = query.parameters.encodedForResponse(query: query.text)
        return results
    }
}

/// With `listen` set, live subscriptions on the table are run again by its notifications.
extension PostgresBackend: ChangeAnnouncingSearchable {
    public var changeFeed: JSONObject? { config.listen.map { ["via": "notify", "channel": .string($0.name)] } }

    public func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)? {
        guard let channel = config.listen else { return nil }
        return PostgresChangeFeed(connectionString: config.connection, channel: channel, changed: changed)
    }
}
