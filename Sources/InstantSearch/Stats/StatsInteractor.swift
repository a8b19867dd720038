import FederatedSearchCore

/// What a stats line shows about one index's answer.
public struct SearchStats: Sendable, Equatable {
    public let nbHits: Int
    public let page: Int
    public let nbPages: Int
    public let hitsPerPage: Int
    public let processingTimeMS: Double
    public let query: String
    /// Whether `nbHits` is exact.
    public let exhaustiveNbHits: Bool

    public init(_ results: SearchResults) {
        nbHits = results.nbHits
        page = results.page
        nbPages = results.nbPages
        hitsPerPage = results.hitsPerPage
        processingTimeMS = results.processingTimeMS
        query = results.query
        exhaustiveNbHits = results.exhaustiveNbHits
    }

    /// `1,234 results in 0.4 ms` (`~` before an estimate).
    public var text: String {
        let n = DisplayFormat.count(nbHits)
        let ms = DisplayFormat.milliseconds(processingTimeMS)
        return "\(exhaustiveNbHits ? "" : "~")\(n) result\(nbHits == 1 ? "" : "s") in \(ms) ms"
    }
}

/// The stats of one index's last answer.
@MainActor
public final class StatsInteractor: ItemInteractor<SearchStats?> {
    public init() { super.init(item: nil) }
}
