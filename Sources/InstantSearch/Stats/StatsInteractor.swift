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
        let n = nbHits.formatted
        let ms = processingTimeMS < 10 ? String(format1: processingTimeMS) : String(Int(processingTimeMS.rounded()))
        return "\(exhaustiveNbHits ? "" : "~")\(n) result\(nbHits == 1 ? "" : "s") in \(ms) ms"
    }
}

/// The stats of one index's last answer.
@MainActor
public final class StatsInteractor: ItemInteractor<SearchStats?> {
    public init() { super.init(item: nil) }
}

extension Int {
    /// With thousands separators: 12,345.
    var formatted: String {
        let digits = String(Swift.abs(self))
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return self < 0 ? "-" + out : out
    }
}

extension String {
    /// One decimal: 0.4.
    init(format1 d: Double) {
        let tenths = Int((d * 10).rounded())
        self = "\(tenths / 10).\(tenths % 10)"
    }
}
