/// Something that answers searches: the embedded index or a custom backend.
///
/// This is InstantSearch's one-method contract: `search(query) -> SearchResults`, or an error.
/// Implementations must be safe to call concurrently, should check `Task.isCancelled` (or
/// use cancellable I/O) so that a cancelled or timed-out query stops working promptly, and
/// should give each hit a `_rankingScore` in [0, 1].
public protocol Searchable: Sendable {
    /// What the daemon reports about this searchable in the `indices` op.
    var description: SearchableDescription { get }

    /// Runs one query.
    func search(_ query: SearchQuery) async throws -> SearchResults

    /// Search parameters applied to every search of this searchable under the request's own
    /// (Algolia's index settings that are search parameters too, such as `hitsPerPage`).
    var queryDefaults: JSONObject { get }
}

extension Searchable {
    /// None, unless the searchable says otherwise.
    public var queryDefaults: JSONObject { [:] }
}

/// A searchable whose search waits only on the process's outgoing HTTP loop (the daemon runs
/// that loop on its own loop thread) and does little work around the wait: a request built,
/// a bounded answer read. The daemon runs such a search on its loop thread, where the answer
/// arrives, rather than handing it to another thread and back.
public protocol LoopWaitingSearchable: Searchable {
    /// Whether every request of this searchable goes over that loop (false when one goes
    /// another way, such as an `https://` node through URLSession).
    var waitsOnlyOnHTTPLoop: Bool { get }
}

/// A searchable that can tell when its data changed (a database's notifications): live
/// subscriptions on it run again as soon as it does, instead of polling.
public protocol ChangeAnnouncingSearchable: Searchable {
    /// How it learns of changes, shown as a subscription's freshness (`{"via": "notify",
    /// "channel": ...}`); nil when it is not set up to (then ``watchChanges(_:)`` returns nil).
    var changeFeed: JSONObject? { get }

    /// Starts watching: `changed` is called, on any thread, after each change it learns of,
    /// and after each (re)connection, as changes may have been missed before it; until the
    /// watch returned is stopped.
    func watchChanges(_ changed: @escaping @Sendable () -> Void) -> (any ChangeWatch)?
}

/// A running watch of ``ChangeAnnouncingSearchable/watchChanges(_:)``.
public protocol ChangeWatch: Sendable {
    /// Stops it (a change already being told may still reach `changed`).
    func stop()
    /// Why it is not watching now (its connection failed, the source refused), or nil while
    /// it is: shown with the source's freshness, since no change reaches the subscriptions
    /// meanwhile.
    var problem: String? { get }
}

/// A searchable that answers from memory in microseconds, without I/O or waiting.
///
/// The fan-out runs such a source directly on the request's task instead of starting a task
/// for it: at a few microseconds per search, the hand-offs between threads would cost more
/// than the search (a cross-core hop wakes a sleeping virtual CPU).
/// Implementations must honour `query.deadline` and task cancellation in long loops.
public protocol InlineSearchable: Searchable {
    /// Runs one query on the calling thread.
    func searchInline(_ query: SearchQuery) throws -> SearchResults
}

/// A searchable that can search its facet values: the "search in brands" box of a dashboard.
public protocol FacetValueSearchable: Searchable {
    /// Values of `attribute` whose words start with the words of `prefix` (folded as the index
    /// folds text), counted over the documents that match `query` (its text and filters), most
    /// frequent first.
    func searchForFacetValues(
        attribute: String, prefix: String, query: SearchQuery, maxValues: Int
    ) throws -> [(value: String, count: Int)]

    /// `value` with the part of each of its words that a word of `facetQuery` starts
    /// (folded as the index folds text) between `preTag` and `postTag`: a facet hit's
    /// `highlighted`, marked as a search's `_highlightResult` marks a prefix.
    func highlightFacetValue(_ value: String, facetQuery: String, preTag: String, postTag: String) -> String
}

/// A searchable's self-description, as the `indices` op reports it.
public struct SearchableDescription: Sendable, Equatable {
    /// The backend kind (`embedded`, `http`, ...).
    public var kind: String
    /// The number of documents, when known.
    public var documentCount: Int?
    /// Attributes searched, in priority order.
    public var searchableAttributes: [String]
    /// Attributes that can be faceted and filtered on.
    public var attributesForFaceting: [String]

    public init(kind: String, documentCount: Int?, searchableAttributes: [String], attributesForFaceting: [String]) {
        self.kind = kind
        self.documentCount = documentCount
        self.searchableAttributes = searchableAttributes
        self.attributesForFaceting = attributesForFaceting
    }
}

/// A backend with figures of its own for the daemon's `stats` (a cluster's nodes and their
/// health, say), shown under `backends` by index name.
public protocol ReportsBackendStats: Sendable {
    var backendStats: JSONObject { get }
}

/// A searchable whose matches can be read whole, page after page, in a stable order: Algolia's
/// `browse`, which its clients' `browse_objects` helpers follow to the end of an index.
public protocol Browsable: Searchable {
    /// Up to `limit` documents matching `query` (its text and filters, no ranking) whose
    /// `objectID` comes after `cursor` in byte order, in that order, with their attributes as
    /// `attributesToRetrieve` asks. An object that exists throughout a browse is read exactly
    /// once, whatever writes land between its pages.
    func browse(_ query: SearchQuery, after cursor: String?, limit: Int) throws -> BrowsePage
}

/// One page of a browse.
public struct BrowsePage: Sendable {
    /// The documents, each with its `objectID`.
    public var documents: [JSONObject]
    /// How many documents match in all.
    public var nbHits: Int
    /// Whether documents come after this page's last.
    public var hasMore: Bool

    public init(documents: [JSONObject], nbHits: Int, hasMore: Bool) {
        self.documents = documents
        self.nbHits = nbHits
        self.hasMore = hasMore
    }
}
