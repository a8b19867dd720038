/// What a searchable is asked: the query text and its parameters.
public struct SearchQuery: Sendable, Equatable {
    /// The text typed by the user.
    public var text: String
    /// The parameters, with this searchable's per-index overrides already applied.
    public var parameters: SearchParameters

    public init(text: String, parameters: SearchParameters = SearchParameters()) {
        self.text = text
        self.parameters = parameters
    }
}
