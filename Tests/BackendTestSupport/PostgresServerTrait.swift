import Testing

/// Runs a suite with one real PostgreSQL server (``PostgresServer``), reachable from its tests
/// as `PostgresServer.current`, and stops it when the suite ends.
public struct PostgresServerTrait: SuiteTrait, TestScoping {
    /// Once for the whole suite, not once per test.
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let server = try PostgresServer.start()
        defer { server.stop() }
        try await PostgresServer.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == PostgresServerTrait {
    /// A real PostgreSQL server with the demo products for the suite.
    public static var postgresServer: Self { PostgresServerTrait() }
}
