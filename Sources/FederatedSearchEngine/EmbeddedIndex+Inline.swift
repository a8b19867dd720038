import FederatedSearchCore

/// The embedded index answers from memory, so the fan-out runs it on the request's own task.
extension EmbeddedIndex: InlineSearchable {
    public func searchInline(_ query: SearchQuery) throws -> SearchResults {
        if query.isPastDeadline { throw SearchError(.timeout, "\(name): deadline passed before the search started") }
        return try searchSync(query)
    }
}
