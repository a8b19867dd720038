import FederatedSearchCore

/// One tie-breaking rule of an index's `ranking`, applied in order: a rule only decides
/// between hits that every earlier rule found equal.
public enum RankingRule: Sendable, Equatable, CustomStringConvertible {
    /// Fewer typos first.
    case typo
    /// Closer to `aroundLatLng` first (no effect without it).
    case geo
    /// More matched query words first (matters with optional words and `matchingStrategy: any`).
    case words
    /// Kept for Algolia compatibility; the engine has no optional filters, so it never decides.
    case filters
    /// Matched words closer together first.
    case proximity
    /// Matched in an earlier searchable attribute first, then earlier in that attribute
    /// (unless the attribute is `unordered(...)`).
    case attribute
    /// More words matched exactly (no typo, not only as a prefix) first.
    case exact
    /// The index's `customRanking` criteria.
    case custom
    /// Higher BM25 relevance first.
    case bm25
    /// A numeric attribute, ascending (`asc(price)`) or descending (`desc(price)`).
    case sort(attribute: String, ascending: Bool)

    /// The default order.
    public static let defaults: [RankingRule] = [.typo, .geo, .words, .filters, .proximity, .attribute, .exact, .custom]

    /// Parses one rule as written in settings.
    public static func parse(_ s: String, path: String) throws(SearchError) -> RankingRule {
        switch s {
        case "typo": return .typo
        case "geo": return .geo
        case "words": return .words
        case "filters": return .filters
        case "proximity": return .proximity
        case "attribute": return .attribute
        case "exact": return .exact
        case "custom": return .custom
        case "bm25": return .bm25
        default:
            if let c = try? CustomRankingCriterion.parse(s, path: path) {
                return .sort(attribute: c.attribute, ascending: c.ascending)
            }
            throw SearchError(
                .invalidField,
                "\(path): unknown ranking rule '\(s)' (expected typo, geo, words, filters, proximity, attribute, exact, custom, bm25, asc(attr) or desc(attr))"
            )
        }
    }

    public var description: String {
        switch self {
        case .typo: return "typo"
        case .geo: return "geo"
        case .words: return "words"
        case .filters: return "filters"
        case .proximity: return "proximity"
        case .attribute: return "attribute"
        case .exact: return "exact"
        case .custom: return "custom"
        case .bm25: return "bm25"
        case .sort(let a, let asc): return asc ? "asc(\(a))" : "desc(\(a))"
        }
    }
}

/// One `customRanking` criterion: a numeric (or string) attribute, ascending or descending.
public struct CustomRankingCriterion: Sendable, Equatable {
    public var attribute: String
    public var ascending: Bool

    public init(attribute: String, ascending: Bool) {
        self.attribute = attribute
        self.ascending = ascending
    }

    /// Parses `asc(attr)` or `desc(attr)`.
    public static func parse(_ s: String, path: String) throws(SearchError) -> CustomRankingCriterion {
        for (prefix, asc) in [("asc(", true), ("desc(", false)] where s.hasPrefix(prefix) && s.hasSuffix(")") {
            let name = String(s.dropFirst(prefix.count).dropLast())
            if !name.isEmpty { return CustomRankingCriterion(attribute: name, ascending: asc) }
        }
        throw SearchError(.invalidField, "\(path): expected asc(attribute) or desc(attribute), got '\(s)'")
    }
}
