/// The documents matching one query word, ascending, each with its best hit: the posting
/// that matched (28 bits) under ``MatchFlags`` (4 bits).
///
/// A word that is one term refers to that term's posting slice without copying; a word
/// that expands to many terms (prefix, typos, stems, synonyms) owns a merged list.
struct WordMatches {
    var docs: ArraySlice<UInt32>
    /// Per document hit, or nil when every hit is `constantFlags` + consecutive postings.
    var hits: [UInt32]?
    var firstPosting: Int
    var constantFlags: UInt32
    /// The best flags any of its hits can have (a lower bound for ranking).
    var minFlags: UInt32 = 0
    /// The bitmap slot (``TermBitmaps``) of the one frequent term this word is, if it is.
    var bitmap: Int? = nil

    static let empty = WordMatches(docs: [], hits: [], firstPosting: 0, constantFlags: 0)

    var count: Int { docs.count }

    /// The hit of the `i`-th document (0-based from the start of the list).
    @inline(__always) func hit(_ i: Int) -> UInt32 {
        if let hits { return hits[i] }
        return constantFlags << MatchFlags.shift | UInt32(firstPosting &+ i)
    }

    /// The position in `docs` (relative) of the first document ≥ `doc`, searching from `from`
    /// by galloping: cheap for the ascending lookups of an intersection.
    @inline(__always) func seek(_ doc: UInt32, from: Int) -> Int {
        let base = docs.startIndex
        let n = docs.count
        var lo = from
        if lo >= n || docs[base + lo] >= doc { return lo }
        var step = 1
        var hi = lo + 1
        while hi < n && docs[base + hi] < doc {
            lo = hi
            step <<= 1
            hi = lo + step
        }
        if hi > n { hi = n }
        lo += 1
        while lo < hi {
            let mid = (lo + hi) >> 1
            if docs[base + mid] < doc { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The offset in the list of document `doc`, or nil. Lookups must come in ascending
    /// document order: `cursor` (start at 0) remembers where the last one ended. With a
    /// bitmap the lookup is a bit test and a rank, without one a gallop from the cursor.
    @inline(__always) func find(_ doc: UInt32, cursor: inout Int, bitmaps: TermBitmaps) -> Int? {
        if let bitmap {
            return bitmaps.contains(bitmap, doc) ? bitmaps.rank(bitmap, doc) : nil
        }
        cursor = seek(doc, from: cursor)
        return cursor < docs.count && docs[docs.startIndex &+ cursor] == doc ? cursor : nil
    }
}
