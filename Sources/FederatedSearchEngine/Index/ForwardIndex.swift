/// Document → postings: for each document, the indices of its postings, ascending. Since
/// postings are grouped by term in term-id order, "does document d hold a term of the id
/// range [lo, hi)" is "does it have a posting in [termStart[lo], termStart[hi])", answered
/// from the document's few postings without touching any posting list.
///
/// It lets a word that expands to many terms (a short prefix, typo variants) be checked
/// only on the candidates of the query's other words, and gives the best hit of any word
/// in a visited document without merging the word's postings first (see ``HitCursors``).
struct ForwardIndex: Sendable {
    /// Postings of document `d`: `postings[start[d]..<start[d + 1]]`.
    let start: [UInt32]
    let postings: [UInt32]

    init(docs: [UInt32], documentCount: Int) {
        var start = [UInt32](repeating: 0, count: documentCount + 1)
        for d in docs { start[Int(d) + 1] += 1 }
        for i in 0..<documentCount { start[i + 1] += start[i] }
        var fill = start
        var postings = [UInt32](repeating: 0, count: docs.count)
        for (p, d) in docs.enumerated() {  // ascending p, so each document's list is ascending
            postings[Int(fill[Int(d)])] = UInt32(p)
            fill[Int(d)] += 1
        }
        self.start = start
        self.postings = postings
    }
}

/// A range of postings (those of a term-id range) that a query word matches, with its flags.
struct PostingSpan: Equatable {
    var lo: UInt32
    var hi: UInt32
    var flags: UInt32
}
