import FederatedSearchCore

/// A hit and where it came from, as the merge sees it.
public struct RankedHit: Sendable, Equatable {
    /// The source's position in the request (earlier wins ties).
    public var sourcePosition: Int
    /// The hit's rank within its source, from 0.
    public var rank: Int
    public var score: Double
    public var hit: Hit

    public init(sourcePosition: Int, rank: Int, score: Double, hit: Hit) {
        self.sourcePosition = sourcePosition
        self.rank = rank
        self.score = score
        self.hit = hit
    }
}

/// Merging per-source ranked lists into one: pure functions, apart from the fan-out.
public enum ScoreMerge {
    /// Whether `a` goes before `b`: higher score first, then earlier source, then better rank.
    public static func precedes(_ a: RankedHit, _ b: RankedHit) -> Bool {
        if a.score != b.score { return a.score > b.score }
        if a.sourcePosition != b.sourcePosition { return a.sourcePosition < b.sourcePosition }
        return a.rank < b.rank
    }

    /// k-way merge of lists that are each already in their source's rank order, by
    /// `_rankingScore`, keeping at most `limit` hits.
    ///
    /// A source's own order is kept even where its scores are not monotonic: the merge takes
    /// the best head among the lists, as a merge of sorted runs does.
    public static func merge(_ lists: [[RankedHit]], limit: Int) -> [RankedHit] {
        var heads = Array(repeating: 0, count: lists.count)
        var out: [RankedHit] = []
        out.reserveCapacity(min(limit, lists.reduce(0) { $0 + $1.count }))
        while out.count < limit {
            var best: Int?
            for i in lists.indices where heads[i] < lists[i].count {
                if let b = best {
                    if precedes(lists[i][heads[i]], lists[b][heads[b]]) { best = i }
                } else {
                    best = i
                }
            }
            guard let b = best else { break }
            out.append(lists[b][heads[b]])
            heads[b] += 1
        }
        return out
    }
}
