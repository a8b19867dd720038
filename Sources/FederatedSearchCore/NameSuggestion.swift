/// The name a user probably meant, for error messages ("did you mean 'search'?").
public enum NameSuggestion {
    /// The name among `names` nearest to `word` by edit distance, if it is close enough to be
    /// what was meant (at most a third of its letters wrong, at least one).
    public static func closest(to word: String, among names: [String]) -> String? {
        let w = Array(word.lowercased())
        let best = names.map { ($0, distance(w, Array($0.lowercased()))) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(1, w.count / 3) else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
