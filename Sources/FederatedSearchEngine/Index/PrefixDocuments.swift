/// The documents of each short prefix with many postings, precomputed: the ascending,
/// duplicate-free union of the postings of every term starting with it.
///
/// A query typed into a search box is a short prefix most of the time ("d", "de", "dep"),
/// and such a prefix stands for hundreds of terms: gathering their documents at query time
/// means setting a bit for every posting and reading the bits back, most of the work of a
/// query of one short word. Here those unions are done once, when the snapshot is built,
/// for the nodes of the dictionary's first levels (``PrefixTrie``) with at least
/// ``minimumPostings`` postings; a query reads them as a slice. Meilisearch keeps word
/// prefix document sets for the same reason.
///
/// Memory: each listed level holds at most one entry per posting, and only big nodes are
/// kept (on the benchmark corpus, about 2.3 entries per posting for the three levels).
struct PrefixDocuments: Sendable {
    /// Prefixes with fewer postings are gathered at query time (cheap enough).
    static let minimumPostings = 256

    /// Entry of each kept node, by its posting range (`lo << 32 | hi`): every term has a
    /// posting, so a term range and its posting range name the same terms.
    private let entryOfRange: [UInt64: Int]
    /// Entry `e`'s documents are `docs[start[e]..<start[e + 1]]`.
    private let start: [Int]
    private let docs: [UInt32]
    /// The posting store's `termStart` (shared, not copied): term ids to posting offsets.
    private let termStart: [UInt32]

    init(trie: PrefixTrie, postings: PostingStore, documentCount: Int) {
        var entryOfRange: [UInt64: Int] = [:]
        var start: [Int] = [0]
        var docs: [UInt32] = []
        var marks = [UInt64](repeating: 0, count: (documentCount + 63) >> 6)
        // Node 0 is the root (the empty prefix): an empty query lists every document anyway.
        for n in trie.lo.indices.dropFirst() {
            let lo = Int(trie.lo[n]), hi = Int(trie.hi[n])
            let first = Int(postings.termStart[lo]), end = Int(postings.termStart[hi])
            let key = UInt64(first) << 32 | UInt64(end)
            // A node with one child has that child's range: one entry serves both.
            guard entryOfRange[key] == nil else { continue }
            guard end - first >= Self.minimumPostings else { continue }
            var lowWord = Int.max, highWord = -1
            for p in first..<end {
                let d = Int(postings.docs[p])
                marks[d >> 6] |= 1 << UInt64(d & 63)
                lowWord = min(lowWord, d >> 6)
                highWord = max(highWord, d >> 6)
            }
            for w in lowWord...highWord {
                var bits = marks[w]
                marks[w] = 0
                while bits != 0 {
                    docs.append(UInt32(w << 6 | bits.trailingZeroBitCount))
                    bits &= bits &- 1
                }
            }
            entryOfRange[key] = start.count - 1
            start.append(docs.count)
        }
        self.entryOfRange = entryOfRange
        self.start = start
        self.docs = docs
        termStart = postings.termStart
    }

    /// The documents holding a term with id in `lo..<hi`, when that range is a kept prefix.
    @inline(__always) func documents(lo: Int, hi: Int) -> ArraySlice<UInt32>? {
        documents(postings: termStart[lo], termStart[hi])
    }

    /// The documents of the postings `lo..<hi`, when they are a kept prefix's.
    @inline(__always) private func documents(postings lo: UInt32, _ hi: UInt32) -> ArraySlice<UInt32>? {
        guard !entryOfRange.isEmpty, let e = entryOfRange[UInt64(lo) << 32 | UInt64(hi)] else { return nil }
        return docs[start[e]..<start[e + 1]]
    }

    /// The documents of `spans` when together they are exactly one kept prefix's terms
    /// (each span starting where the one before ends): the case of a short prefix word,
    /// whose spans are its exact term (if any) and the rest of its prefix range.
    func documents(of spans: [TermSpan]) -> ArraySlice<UInt32>? {
        guard let first = spans.first, let last = spans.last else { return nil }
        for i in spans.indices.dropFirst() where spans[i].lo != spans[i - 1].hi { return nil }
        return documents(lo: first.lo, hi: last.hi)
    }

    /// The same for posting spans (a word's spans once matched; see ``WordMatches/spans``).
    func documents(of spans: [PostingSpan]) -> ArraySlice<UInt32>? {
        guard let first = spans.first, let last = spans.last else { return nil }
        for i in spans.indices.dropFirst() where spans[i].lo != spans[i - 1].hi { return nil }
        return documents(postings: first.lo, last.hi)
    }

    /// Entries kept, and the documents they list in all (memory: 4 bytes each).
    var size: (entries: Int, documents: Int) { (start.count - 1, docs.count) }
}
