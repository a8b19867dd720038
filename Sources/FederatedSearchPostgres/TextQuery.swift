import FederatedSearchCore

/// The query text as a PostgreSQL `tsquery`: every word required, the last one (or every one,
/// or none, after `queryType`) matched as a prefix.
///
/// Words are the runs of letters and digits (Unicode scalars) of the text; everything else separates them, so
/// the tsquery syntax (`& | ! ( ) : * '`) can never come from the user. Each word is also
/// written quoted. The tsquery text is then sent as a parameter of `to_tsquery`, which applies
/// the text-search configuration (stemming, stop words) exactly as `to_tsvector` does.
public struct TextQuery: Sendable, Equatable {
    /// The words of the query, in order.
    public var words: [String]
    /// Which words are prefixes.
    public var queryType: SearchParameters.QueryType

    /// The most words used; the rest of a very long query is ignored.
    public static let maxWords = 32

    public init(_ text: String, queryType: SearchParameters.QueryType = .prefixLast) {
        var words: [String] = []
        var current = ""
        for c in text.unicodeScalars {
            if c.properties.isAlphabetic || c.properties.numericType != nil {
                current.unicodeScalars.append(c)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        self.words = Array(words.prefix(Self.maxWords))
        self.queryType = queryType
    }

    /// Whether there is nothing to match (every row matches).
    public var isEmpty: Bool { words.isEmpty }

    /// The `tsquery` text, for example `'toner' & 'black':*`.
    public var tsquery: String {
        words.enumerated().map { i, word in
            let prefix: Bool
            switch queryType {
            case .prefixAll: prefix = true
            case .prefixNone: prefix = false
            case .prefixLast: prefix = i == words.count - 1
            }
            // Letters and digits only, so no quote can occur inside the quotes.
            return "'\(word)'" + (prefix ? ":*" : "")
        }.joined(separator: " & ")
    }
}
