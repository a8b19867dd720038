/// What a searchable is asked: the query text and its parameters.
public struct SearchQuery: Sendable, Equatable {
    /// The text typed by the user.
    public var text: String
    /// The parameters, with this searchable's per-index overrides already applied.
    public var parameters: SearchParameters
    /// When the answer stops being useful. Backends should give up by then (and long engine
    /// loops check it along with task cancellation); nil means no deadline.
    public var deadline: ContinuousClock.Instant?
    /// The most bytes the page's hits may take as JSON (their attributes and highlights), or
    /// nil for no bound. An engine that builds hits stops once it knows they pass it and fails
    /// with `answer_too_large`, so an answer too large to send is never built whole. Not part
    /// of the query's identity.
    public var answerByteLimit: Int?

    public init(
        text: String, parameters: SearchParameters = SearchParameters(), deadline: ContinuousClock.Instant? = nil
    ) {
        self.text = text
        self.parameters = parameters
        self.deadline = deadline
    }

    public static func == (a: SearchQuery, b: SearchQuery) -> Bool {
        a.text == b.text && a.parameters == b.parameters && a.deadline == b.deadline
    }

    /// Whether the deadline has passed.
    public var isPastDeadline: Bool {
        guard let deadline else { return false }
        return ContinuousClock.now > deadline
    }
}
