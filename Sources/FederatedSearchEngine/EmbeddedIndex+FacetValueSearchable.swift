import FederatedSearchCore

/// The embedded index answers the `searchForFacetValues` op.
extension EmbeddedIndex: FacetValueSearchable {
    public func highlightFacetValue(_ value: String, facetQuery: String, preTag: String, postTag: String) -> String {
        let analyzer = snapshot.analyzer
        let words = analyzer.queryTokens(facetQuery).map { Array($0.term.utf8) }
        guard !words.isEmpty else { return value }
        let text = Array(value.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 2 * (preTag.utf8.count + postTag.utf8.count))
        var copied = 0
        for token in analyzer.textTokens(value) where token.start >= copied {
            // The longest query word this word starts with: "sci" and "science" both mark "Science".
            let matched = words.lazy.filter { token.term.starts(with: $0) }.map(\.count).max() ?? 0
            guard matched > 0 else { continue }
            let end = token.originalEnd(coveringFolded: matched)
            out += text[copied..<token.start]
            out += preTag.utf8
            out += text[token.start..<end]
            out += postTag.utf8
            copied = end
        }
        out += text[copied...]
        return String(decoding: out, as: UTF8.self)
    }
}
