import FederatedSearchClient
import FederatedSearchProtocol

/// What each source of a federated search did: ok, timeout, error, skipped (its breaker is
/// open) or superseded, with its time, and whether the daemon can be reached at all. Only a
/// federated backend can offer it: it comes from the daemon's `done` frame.
@MainActor
public final class SourceStatusInteractor: ItemInteractor<SourceStatusInteractor.State> {
    /// The last search's report and the link's state.
    public struct State: Sendable, Equatable {
        /// The last `done` frame's report (nil before the first).
        public var last: FederatedSearcher.Status?
        /// The searches sent and not ended.
        public var isLoading = false
        public var connection: ConnectionState = .idle
        /// The last error of the whole request (the daemon unreachable, a refused request).
        public var error: SearcherError?

        public init() {}
    }

    public init() { super.init(item: State()) }
}
