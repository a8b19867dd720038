/// The corpus-wide figures BM25 reads: how many documents are live, how many postings each
/// query word's terms have among them, and each attribute's average length. An index split
/// into segments sums them over its segments, so a document scores exactly as it would in one
/// index built from the same documents.
struct CorpusStats {
    var documentCount: Int
    /// Per query word: its document frequency (see ``TextMatch/documentFrequency``).
    var wordFrequency: [Int]
    /// Per attribute slot: average words per live document (at least 1).
    var averageFieldLength: [Double]

    /// The figures of one snapshot (less its deleted documents) for a match.
    init(index: IndexSnapshot, live: LiveDocuments?, match: TextMatch) {
        documentCount = live?.count ?? index.documentCount
        wordFrequency = match.documentFrequency
        let totals = Self.fieldLengthTotals(index.text, live: live)
        averageFieldLength = Self.averages(totals, documentCount: documentCount)
    }

    init(documentCount: Int, wordFrequency: [Int], averageFieldLength: [Double]) {
        self.documentCount = documentCount
        self.wordFrequency = wordFrequency
        self.averageFieldLength = averageFieldLength
    }

    /// Words per slot summed over the live documents of one snapshot (exact: sums of integers).
    static func fieldLengthTotals(_ text: TextIndex, live: LiveDocuments?) -> [Double] {
        guard let live else { return text.fieldLengthTotals }
        return zip(text.fieldLengthTotals, live.deletedFieldLengths).map { $0 - $1 }
    }

    static func averages(_ totals: [Double], documentCount: Int) -> [Double] {
        totals.map { max(1, $0 / Double(max(documentCount, 1))) }
    }
}
