import FederatedSearchCore
import FederatedSearchProtocol

/// What one source did in a search (a row of the `done` frame).
public struct SourceStatusItem: Sendable, Equatable {
    public let name: String
    public let report: SourceReport

    public init(name: String, report: SourceReport) {
        self.name = name
        self.report = report
    }
}

/// Hits of a merged list from a position on, for the query they answer.
public struct MergedPage: Sendable, Equatable {
    public let query: String
    public let offset: Int
    public let results: MergedResults

    public init(query: String, offset: Int, results: MergedResults) {
        self.query = query
        self.offset = offset
        self.results = results
    }
}
