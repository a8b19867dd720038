/// What a searchable is asked: the query text and its parameters.
public struct SearchQuery: Sendable, Equatable {
    /// The text typed by the user.
    public var text: String
    /// The parameters, with this searchable's per-index overrides already applied.
    public var parameters: SearchParameters
    /// When the answer stops being useful. Backends should give up by then (and long engine
    /// loops check it along with task cancellation); nil means no deadline.
    public var deadline: ContinuousClock.Instant?

    public init(text: String, parameters: SearchParameters = SearchParameters(), deadline: ContinuousClock.Instant? = nil) {
        self.text = text
        self.parameters = parameters
        self.deadline = deadline
    }

    /// Whether the deadline has passed.
    public var isPastDeadline: Bool {
        guard let deadline else { return false }
        return ContinuousClock.now > deadline
    }
}
