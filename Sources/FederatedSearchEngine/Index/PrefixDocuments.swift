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
/// Memory: a prefix found in many documents (the first levels' usually are) is kept as a
/// bitmap of the documents, one bit per document, once its list would be larger (4 bytes a
/// document); a query reads that back into a list, still far cheaper than merging its terms'
/// postings. The others are lists. Index memory, with `fedsearch-bench-engine`: 100k
/// documents 15.1 MB without these prefixes, 17.3 MB with them, 20.6 MB with lists only;
/// 1M documents 82, about 118 and 143 MB. Prefix queries' p50 went from 27 to 24 µs (100k)
/// and from 83 to 64 µs (1M); lists only gave 19 and 50.
struct PrefixDocuments: Sendable {
    /// Prefixes with fewer postings are gathered at query time (cheap enough).
    static let minimumPostings = 256

    /// Entry of each kept node, by its posting range (`lo << 32 | hi`): every term has a
    /// posting, so a term range and its posting range name the same terms. An entry `e >= 0`
    /// is a list, `docs[start[e]..<start[e + 1]]`; `e < 0` is bitmap `-1 - e`, the words
    /// `bits[b * wordCount..<(b + 1) * wordCount]`, holding `bitmapCounts[b]` documents.
    private let entryOfRange: [UInt64: Int]
    private let start: [Int]
    private let docs: [UInt32]
    private let bits: [UInt64]
    private let bitmapCounts: [Int]
    private let wordCount: Int
    /// The posting store's `termStart` (shared, not copied): term ids to posting offsets.
    private let termStart: [UInt32]

    /// Whether `count` documents are kept as a bitmap of `wordCount` words rather than a list:
    /// whichever is smaller.
    static func isDense(count: Int, wordCount: Int) -> Bool { count >= 2 * wordCount }

    init(trie: PrefixTrie, postings: PostingStore, documentCount: Int) {
        let wordCount = (documentCount + 63) >> 6
        var entryOfRange: [UInt64: Int] = [:]
        var start: [Int] = [0]
        var docs: [UInt32] = []
        var bits: [UInt64] = []
        var bitmapCounts: [Int] = []
        var marks = [UInt64](repeating: 0, count: wordCount)
        // Node 0 is the root (the empty prefix): an empty query lists every document anyway.
        for n in trie.lo.indices.dropFirst() {
            let lo = Int(trie.lo[n]), hi = Int(trie.hi[n])
            let first = Int(postings.termStart[lo]), end = Int(postings.termStart[hi])
            let key = UInt64(first) << 32 | UInt64(end)
            // A node with one child has that child's range: one entry serves both.
            guard entryOfRange[key] == nil else { continue }
            guard end - first >= Self.minimumPostings else { continue }
            if (end - first) * 8 < wordCount {
                // Few postings for the corpus: sorted and deduplicated (reading out the bits
                // would visit every word of the documents' span).
                var list = Array(postings.docs[first..<end])
                list.sort()
                var previous = UInt32.max
                for d in list where d != previous {
                    docs.append(d)
                    previous = d
                }
                entryOfRange[key] = start.count - 1
                start.append(docs.count)
                continue
            }
            var lowWord = Int.max, highWord = -1
            for p in first..<end {
                let d = Int(postings.docs[p])
                marks[d >> 6] |= 1 << UInt64(d & 63)
                lowWord = min(lowWord, d >> 6)
                highWord = max(highWord, d >> 6)
            }
            var count = 0
            for w in lowWord...highWord { count += marks[w].nonzeroBitCount }
            if Self.isDense(count: count, wordCount: wordCount) {
                entryOfRange[key] = -1 - bitmapCounts.count
                bitmapCounts.append(count)
                bits.append(contentsOf: marks)
                for w in lowWord...highWord { marks[w] = 0 }
                continue
            }
            for w in lowWord...highWord {
                var word = marks[w]
                marks[w] = 0
                while word != 0 {
                    docs.append(UInt32(w << 6 | word.trailingZeroBitCount))
                    word &= word &- 1
                }
            }
            entryOfRange[key] = start.count - 1
            start.append(docs.count)
        }
        self.entryOfRange = entryOfRange
        self.start = start
        self.docs = docs
        self.bits = bits
        self.bitmapCounts = bitmapCounts
        self.wordCount = wordCount
        termStart = postings.termStart
    }

    /// The documents holding a term with id in `lo..<hi`, when that range is a kept prefix.
    @inline(__always) func documents(lo: Int, hi: Int) -> ArraySlice<UInt32>? {
        documents(postings: termStart[lo], termStart[hi])
    }

    /// The documents of the postings `lo..<hi`, when they are a kept prefix's.
    @inline(__always) private func documents(postings lo: UInt32, _ hi: UInt32) -> ArraySlice<UInt32>? {
        guard !entryOfRange.isEmpty, let e = entryOfRange[UInt64(lo) << 32 | UInt64(hi)] else { return nil }
        if e >= 0 { return docs[start[e]..<start[e + 1]] }
        let b = -1 - e
        var list: [UInt32] = []
        list.reserveCapacity(bitmapCounts[b])
        for w in 0..<wordCount {
            var word = bits[b &* wordCount &+ w]
            while word != 0 {
                list.append(UInt32(w << 6 | word.trailingZeroBitCount))
                word &= word &- 1
            }
        }
        return list[...]
    }

    /// How many documents hold a term of posting spans that are exactly a kept prefix's
    /// (see ``documents(of:)-([PostingSpan])``), without listing them.
    func count(of spans: [PostingSpan]) -> Int? {
        guard let first = spans.first, let last = spans.last, !entryOfRange.isEmpty else { return nil }
        for i in spans.indices.dropFirst() where spans[i].lo != spans[i - 1].hi { return nil }
        guard let e = entryOfRange[UInt64(first.lo) << 32 | UInt64(last.hi)] else { return nil }
        return e >= 0 ? start[e + 1] - start[e] : bitmapCounts[-1 - e]
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

    /// Prefixes kept as lists and as bitmaps.
    var kinds: (lists: Int, bitmaps: Int) { (start.count - 1, bitmapCounts.count) }
}
