/// The documents matching one query word, ascending, each with its best hit: the posting
/// that matched (28 bits) under ``MatchFlags`` (4 bits).
///
/// A word that is one term refers to that term's posting slice without copying; a word
/// that expands to many terms (prefix, typos, stems, synonyms) owns a merged list.
///
/// A class, so that the per-document lookups of ranking read it in place, never copying it.
final class WordMatches {
    var docs: ArraySlice<UInt32>
    /// Per document hit, or nil when every hit is `constantFlags` + consecutive postings.
    var hits: [UInt32]?
    var firstPosting: Int
    var constantFlags: UInt32
    /// The best flags any of its hits can have (a lower bound for ranking).
    var minFlags: UInt32 = 0
    /// The bitmap slot (``TermBitmaps``) of the one frequent term this word is, if it is.
    var bitmap: Int? = nil
    /// When not empty, hits are not stored: a document's hit is its best posting within these
    /// spans, read from the forward index (``hit(_:)`` must not be used). Disjoint and
    /// ascending (from normalised term spans).
    var spans: [PostingSpan] = [] {
        didSet { levels = PostingSpan.levels(spans) }
    }
    /// `spans` grouped by flags, best flags first, each group ascending: a document's best hit
    /// is its lowest posting in the first group where it has one.
    private(set) var levels: [PostingLevel] = []
    /// Whether `docs` was left empty because the query's other words are far rarer: the word
    /// is then only checked on their candidates (through `spans`), never enumerated.
    var isDeferred = false
    /// The word's documents as a bitmap, for a word of many terms with many postings: `docs`
    /// is then empty (read them with ``CandidateMatcher``), hits come through `spans`.
    var docBits: [UInt64]? = nil
    /// The number of documents it matches when `docs` does not list them as a bitmap: the
    /// bitmap's count.
    var unlistedFrequency: Int? = nil

    init(
        docs: ArraySlice<UInt32>, hits: [UInt32]?, firstPosting: Int, constantFlags: UInt32, minFlags: UInt32 = 0,
        bitmap: Int? = nil
    ) {
        self.docs = docs
        self.hits = hits
        self.firstPosting = firstPosting
        self.constantFlags = constantFlags
        self.minFlags = minFlags
        self.bitmap = bitmap
    }

    /// A word that matches nothing.
    static var empty: WordMatches { WordMatches(docs: [], hits: [], firstPosting: 0, constantFlags: 0) }

    var count: Int { docs.count }

    /// The hit of the `i`-th document (0-based from the start of the list).
    @inline(__always) func hit(_ i: Int) -> UInt32 {
        if let hits { return hits[i] }
        return constantFlags << MatchFlags.shift | UInt32(firstPosting &+ i)
    }

    /// The position in `docs` (relative) of the first document ≥ `doc`, searching from `from`
    /// (see ``SortedLists/seek(_:from:count:_:)``).
    @inline(__always) func seek(_ doc: UInt32, from: Int) -> Int {
        let base = docs.startIndex
        return SortedLists.seek(doc, from: from, count: docs.count) { docs[base &+ $0] }
    }
}
