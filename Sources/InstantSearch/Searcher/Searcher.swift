import FederatedSearchClient
import FederatedSearchCore

/// What every searcher has: the query text, its events, and `search()` / `cancel()`.
@MainActor
public protocol Searcher: AnyObject {
    /// The query text the next search sends.
    var query: String? { get set }
    /// Fired when `query` changes.
    var onQueryChanged: Observer<String?> { get }
    /// Fired with true when a search starts and false once no search of this searcher runs.
    var isLoading: Observer<Bool> { get }
    /// Fired when a search fails: the daemon unreachable, the request refused, a source failed.
    var onError: Observer<SearcherError> { get }
    /// Fired with the query each time a search is sent.
    var onSearch: Observer<String?> { get }
    /// Sends a search with the current query and parameters.
    func search()
    /// Cancels every search of this searcher still running (on the daemon too).
    func cancel()
}

/// A search that failed, or one source of it.
public struct SearcherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source that failed (nil: the whole request).
    public var source: String?
    /// The daemon's code (`timeout`, `invalid_filter`, ...) or the client's (`unavailable`,
    /// `disconnected`).
    public var code: String
    public var message: String

    public init(source: String?, code: String, message: String) {
        self.source = source
        self.code = code
        self.message = message
    }

    init(_ error: any Error) {
        switch error {
        case let e as ClientError:
            let code: String
            switch e {
            case .unavailable: code = "unavailable"
            case .disconnected: code = "disconnected"
            case .badFrame: code = "bad_frame"
            case .closed: code = "closed"
            }
            self.init(source: nil, code: code, message: e.description)
        case let e as SearchError:
            self.init(source: nil, code: e.code.rawValue, message: e.message)
        default:
            self.init(source: nil, code: "internal_error", message: "\(error)")
        }
    }

    public var description: String { source.map { "\($0): \(message)" } ?? message }
}

/// A searcher whose answers carry one index's results: what the Hits, FacetList, Stats,
/// Pagination and NumberRange interactors connect to. A ``HitsSearcher`` is one; so is each
/// source of a ``FederatedSearcher`` (``FederatedSearcher/source(_:)``).
@MainActor
public protocol SearchResultsSource: AnyObject {
    /// The results of each answer, in keystroke order.
    var onResults: Observer<SearchResults> { get }
    /// The parameters this index is searched with (interactors add facets, set the page).
    var parameters: SearchParameters { get set }
    /// Searches again with the current parameters.
    func search()
    /// Searches for page `page` of this index only (more hits, another page).
    func search(page: Int)
}

extension SearchResultsSource {
    /// Sets the page and searches again (a searcher of one index).
    public func search(page: Int) {
        parameters.page = page
        search()
    }
}
