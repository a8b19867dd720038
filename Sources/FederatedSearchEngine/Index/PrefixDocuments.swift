/// The documents of each short prefix with many postings, precomputed: the ascending,
/// duplicate-free union of the postings of every term starting with it.
///
/// A query typed into a search box is a short prefix most of the time ("d", "de", "dep"),
/// and such a prefix stands for hundreds of terms: gathering their documents at query time
/// means setting a bit for every posting and reading the bits back, most of the work of a
/// query of one short word. Here those unions are done once, when the snapshot is built,
/// for the nodes of the dictionary's first levels (``PrefixTrie``) with at least
/// ``minimumPostings`` postings, and a query reads them. Meilisearch keeps word
/// prefix document sets for the same reason.
///
/// Memory: a prefix found in many documents (the first levels' usually are) is kept as a
/// bitmap of the documents, one bit per document, once its list would be larger (4 bytes a
/// document); a query reads that back into a list, still far cheaper than merging its terms'
/// postings. The others are lists. Bitmaps cost a little query time against lists only, for
/// much less memory at large document counts (`fedsearch-bench-engine` reports both).
struct PrefixDocuments: Sendable {
    /// Prefixes with fewer postings are gathered at query time (cheap enough).
    static let minimumPostings = 256
    /// The longest prefixes kept, in bytes (the trie lists deeper levels for the typo walk).
    static let maximumLength = 3

    /// Entry of each kept node, by its posting range (`lo << 32 | hi`): every term has a
    /// posting, so a term range and its posting range name the same terms. An entry `e >= 0`
    /// is a list, `docs[start[e]..<start[e + 1]]`; `e < 0` is bitmap `b = -1 - e`, `bitmaps[b]`
    /// (one array each, so that a query can hold it without a copy), holding `bitmapCounts[b]`
    /// documents.
    private let entryOfRange: [UInt64: Int]
    private let start: [Int]
    private let docs: [UInt32]
    private let bitmaps: [[UInt64]]
    private let bitmapCounts: [Int]
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
        var bitmaps: [[UInt64]] = []
        var bitmapCounts: [Int] = []
        var marks = [UInt64](repeating: 0, count: wordCount)
        // Node 0 is the root (the empty prefix): an empty query lists every document anyway.
        // Prefixes of up to `maximumLength` bytes: longer ones have fewer postings each, and
        // the fourth level's cost more memory than they save work.
        for n in 1..<trie.levelStart[Self.maximumLength + 1] {
            let lo = Int(trie.lo[n])
            let hi = Int(trie.hi[n])
            let first = Int(postings.termStart[lo])
            let end = Int(postings.termStart[hi])
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
            var lowWord = Int.max
            var highWord = -1
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
                bitmaps.append(marks)
                for w in lowWord...highWord { marks[w] = 0 }
                continue
            }
            for w in lowWord...highWord {
                Self.appendMembers(marks[w], word: w, to: &docs)
                marks[w] = 0
            }
            entryOfRange[key] = start.count - 1
            start.append(docs.count)
        }
        self.entryOfRange = entryOfRange
        self.start = start
        self.docs = docs
        self.bitmaps = bitmaps
        self.bitmapCounts = bitmapCounts
        termStart = postings.termStart
    }

    /// The entry of the postings `lo..<hi`, when they are a kept prefix's.
    @inline(__always) private func entry(_ lo: UInt32, _ hi: UInt32) -> Int? {
        entryOfRange.isEmpty ? nil : entryOfRange[UInt64(lo) << 32 | UInt64(hi)]
    }

    /// The documents of an entry: a slice of the lists, or a bitmap read out.
    private func documents(_ e: Int) -> ArraySlice<UInt32> {
        if e >= 0 { return docs[start[e]..<start[e + 1]] }
        let b = -1 - e
        var list: [UInt32] = []
        list.reserveCapacity(bitmapCounts[b])
        for (w, bits) in bitmaps[b].enumerated() { Self.appendMembers(bits, word: w, to: &list) }
        return list[...]
    }

    /// Appends the documents of bitmap word number `w`, ascending.
    @inline(__always) private static func appendMembers(_ bits: UInt64, word w: Int, to list: inout [UInt32]) {
        var rest = bits
        while rest != 0 {
            list.append(UInt32(w << 6 | rest.trailingZeroBitCount))
            rest &= rest &- 1
        }
    }

    /// The range from span 0's start to span `count - 1`'s end, when each of the `count` spans
    /// starts where the one before ends (the case of a short prefix word, whose spans are its
    /// exact term, if any, and the rest of its prefix range).
    @inline(__always)
    private static func contiguous(_ count: Int, lo: (Int) -> Int, hi: (Int) -> Int) -> (lo: Int, hi: Int)? {
        guard count > 0 else { return nil }
        for i in 1..<count where lo(i) != hi(i - 1) { return nil }
        return (lo(0), hi(count - 1))
    }

    private static func contiguous(_ spans: [PostingSpan]) -> (lo: UInt32, hi: UInt32)? {
        contiguous(spans.count, lo: { Int(spans[$0].lo) }, hi: { Int(spans[$0].hi) }).map { (UInt32($0.lo), UInt32($0.hi)) }
    }

    /// The documents holding a term with id in `lo..<hi`, when that range is a kept prefix.
    func documents(lo: Int, hi: Int) -> ArraySlice<UInt32>? {
        entry(termStart[lo], termStart[hi]).map(documents)
    }

    /// The entry of `spans` when together they are exactly one kept prefix's terms.
    private func entry(of spans: [TermSpan]) -> Int? {
        Self.contiguous(spans.count, lo: { spans[$0].lo }, hi: { spans[$0].hi }).flatMap { entry(termStart[$0.lo], termStart[$0.hi]) }
    }

    /// The documents of `spans` when together they are exactly one kept prefix's terms.
    func documents(of spans: [TermSpan]) -> ArraySlice<UInt32>? {
        entry(of: spans).map(documents)
    }

    /// The documents of `spans`, when together they are exactly one kept prefix's terms and
    /// that prefix is kept as a bitmap: the bitmap itself (shared, not copied) and how many
    /// documents it holds. An intersection ANDs it word-parallel, where reading it out into a
    /// list would cost a step per document.
    func bitmap(of spans: [TermSpan]) -> (bits: [UInt64], count: Int)? {
        guard let e = entry(of: spans), e < 0 else { return nil }
        return (bitmaps[-1 - e], bitmapCounts[-1 - e])
    }

    /// The same for posting spans (a word's spans once matched; see ``WordMatches/spans``).
    func documents(of spans: [PostingSpan]) -> ArraySlice<UInt32>? {
        Self.contiguous(spans).flatMap { entry($0.lo, $0.hi) }.map(documents)
    }

    /// How many documents hold a term of posting spans that are exactly a kept prefix's,
    /// without listing them.
    func count(of spans: [PostingSpan]) -> Int? {
        guard let e = Self.contiguous(spans).flatMap({ entry($0.lo, $0.hi) }) else { return nil }
        return e >= 0 ? start[e + 1] - start[e] : bitmapCounts[-1 - e]
    }

    /// Prefixes kept as lists and as bitmaps.
    var kinds: (lists: Int, bitmaps: Int) { (start.count - 1, bitmapCounts.count) }
}
