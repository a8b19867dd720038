/// One unit of a query that documents must (or, when optional, may) match: a word, or a
/// quoted phrase whose words must be adjacent.
struct QueryWord: Equatable {
    /// Folded terms: one for a word, several for a phrase.
    var terms: [String]
    /// The words as typed (for `matchedWords`).
    var originals: [String]
    /// Whether the word also matches as a prefix of longer terms.
    var isPrefix: Bool
    /// The most typos allowed (0 for phrases).
    var maxTypos: Int
    /// Whether documents may lack it (optional words, `matchingStrategy: any`).
    var isOptional: Bool
    /// For consecutive words that are the input of a multi-word synonym (`big cat` with
    /// `tiger`): the words. The unit matches documents holding all of them, or an alternative.
    var members: [QueryWord] = []
    /// Whether it is one word in quotes (`"star"`): like a phrase, it matches only its exact
    /// term (no prefix, typos, inflections or synonyms).
    var isQuoted = false

    var isPhrase: Bool { terms.count > 1 && members.isEmpty }
    /// Whether it was quoted (a phrase, or one word in quotes): it matches its exact terms only,
    /// and is never removed, made a prefix or optional, or given synonyms.
    var isQuotation: Bool { isPhrase || isQuoted }
    /// Whether it is a group of words with synonyms.
    var isGroup: Bool { !members.isEmpty }
    /// The folded term of a single word.
    var term: String { terms[0] }
}

/// A parsed query: the words to match and the terms to exclude.
struct ParsedQuery: Equatable {
    var words: [QueryWord]
    /// Folded terms whose documents are removed (`-word`).
    var excluded: [String]

    /// Whether nothing is left to match (an empty query returns every document).
    var isEmpty: Bool { words.isEmpty }
    /// The words documents must match.
    var requiredCount: Int { words.filter { !$0.isOptional }.count }
}
