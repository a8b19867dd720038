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

/// The posting spans of a word that share one flags value, ascending and disjoint.
struct PostingLevel {
    var flags: UInt32
    var los: [UInt32]
    var his: [UInt32]
}

extension PostingSpan {
    /// Disjoint ascending spans grouped by flags, best (lowest) flags first.
    static func levels(_ spans: [PostingSpan]) -> [PostingLevel] {
        var out: [PostingLevel] = []
        for f in Set(spans.map(\.flags)).sorted() {
            let group = spans.filter { $0.flags == f }.sorted { $0.lo < $1.lo }
            out.append(PostingLevel(flags: f, los: group.map(\.lo), his: group.map(\.hi)))
        }
        return out
    }
}

extension ForwardIndex {
    /// The best hit (lowest `flags << 28 | posting`) of document `doc` among the postings of
    /// `levels`, or `UInt32.max`. Per level, best first, the document's ascending postings and
    /// the level's ascending disjoint spans are merged, galloping in the longer list, so the
    /// cost is about the shorter list times the log of the longer, never their product.
    @inline(__always)
    static func bestHit(_ doc: UInt32, _ levels: [PostingLevel], start: [UInt32], postings: [UInt32]) -> UInt32 {
        let s = Int(start[Int(doc)])
        let e = Int(start[Int(doc) &+ 1])
        if s == e { return .max }
        // Indexed, not `for level in levels`: copying a level out retains its two arrays, and
        // this runs for every word of every document ranking visits.
        for li in levels.indices {
            let n = levels[li].los.count
            if n <= e - s {
                // Span-driven: the first posting at or after each span's start.
                var i = s
                for k in 0..<n {
                    let lo = levels[li].los[k]
                    if postings[i] < lo { i = gallop(postings, from: i, to: e) { $0 < lo } }
                    if i == e { break }
                    if postings[i] < levels[li].his[k] { return levels[li].flags << MatchFlags.shift | postings[i] }
                }
            } else {
                // Posting-driven: the last span starting at or before each posting.
                var k = 0
                for i in s..<e {
                    let p = postings[i]
                    if levels[li].los[k] > p { continue }
                    k = gallop(levels[li].los, from: k, to: n) { $0 <= p } - 1
                    if p < levels[li].his[k] { return levels[li].flags << MatchFlags.shift | p }
                    if k == n - 1 && p >= levels[li].his[k] { break }
                }
            }
        }
        return .max
    }

    /// The first index in `from..<to` where `before` fails (it holds on a prefix of the range
    /// and `before(list[from])` holds), or `to` (see ``SortedLists/gallop(from:to:_:)``).
    @inline(__always)
    static func gallop(_ list: [UInt32], from: Int, to: Int, _ before: (UInt32) -> Bool) -> Int {
        SortedLists.gallop(from: from, to: to) { before(list[$0]) }
    }
}
