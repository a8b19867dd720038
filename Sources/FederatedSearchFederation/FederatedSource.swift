import FederatedSearchCore

/// One source of a federated query: a searchable, the query it is asked, and its deadline.
public struct FederatedSource: Sendable {
    /// The name the source answers under in frames (the index name).
    public var name: String
    public var searchable: any Searchable {
        didSet {
            inline = searchable as? any InlineSearchable
            waitsOnlyOnHTTPLoop = (searchable as? any LoopWaitingSearchable)?.waitsOnlyOnHTTPLoop ?? false
        }
    }
    /// The searchable as an ``InlineSearchable`` when it answers from memory (the cast is
    /// made once here: the fan-out asks several times per request, and each dynamic cast of
    /// an existential costs about a thousand instructions).
    public private(set) var inline: (any InlineSearchable)?
    /// Whether the searchable waits only on the outgoing HTTP loop (see
    /// ``LoopWaitingSearchable``), found once as ``inline`` is.
    public private(set) var waitsOnlyOnHTTPLoop: Bool
    public var query: SearchQuery
    /// How long the source may take before it is cancelled and reported as `timeout`.
    public var timeout: Duration
    /// Whether a timeout says the index is slow: true when `timeout` is the index's own
    /// deadline (or longer); false when the client chose a shorter one, which says nothing
    /// about the index's health.
    public var timeoutIsTheIndexs = true
    /// The weight of this source's scores in the merge.
    public var weight: Double
    /// The configured index behind the source (several sources may share one).
    public var index: String

    public init(
        name: String, searchable: any Searchable, query: SearchQuery, timeout: Duration, weight: Double = 1,
        index: String? = nil
    ) {
        self.name = name
        self.index = index ?? name
        self.searchable = searchable
        self.inline = searchable as? any InlineSearchable
        self.waitsOnlyOnHTTPLoop = (searchable as? any LoopWaitingSearchable)?.waitsOnlyOnHTTPLoop ?? false
        self.query = query
        self.timeout = timeout
        self.weight = weight
    }
}

/// How one source ended.
public enum SourceOutcome: Sendable {
    case results(SearchResults)
    case failed(SearchError)
    case timedOut
    case cancelled
}

/// A source's outcome and how long it took.
public struct SourceCompletion: Sendable {
    /// Position of the source in the request (for tie-breaking).
    public var position: Int
    public var name: String
    public var outcome: SourceOutcome
    public var elapsed: Duration

    public init(position: Int, name: String, outcome: SourceOutcome, elapsed: Duration) {
        self.position = position
        self.name = name
        self.outcome = outcome
        self.elapsed = elapsed
    }

    /// Elapsed time in milliseconds.
    public var milliseconds: Double {
        let c = elapsed.components
        return Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    }
}
