import FederatedSearchCore

/// `removeWordsIfNoResults`: the words to match next when a query's words matched nothing,
/// one retry at a time (the last or first word dropped while more than one is left, or
/// every word made optional, once).
struct WordDropping {
    let mode: RemoveWordsMode
    private var madeOptional = false

    init(_ mode: RemoveWordsMode) { self.mode = mode }

    /// The words to try after `words` matched nothing; nil when no retry is left.
    mutating func next(after words: [QueryWord]) -> [QueryWord]? {
        guard !madeOptional, words.count > 1 else { return nil }
        var next = words
        switch mode {
        case .lastWords: next.removeLast()
        case .firstWords: next.removeFirst()
        case .allOptional:
            for i in next.indices { next[i].isOptional = true }
            madeOptional = true
        case .none: return nil
        }
        return next
    }
}
