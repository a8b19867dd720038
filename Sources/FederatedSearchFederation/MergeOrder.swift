import FederatedSearchCore

/// A merge candidate: a merged entry and the index of its source in the `sources` array.
struct Candidate {
    var source: Int
    var entry: MergedEntry
}

/// The order of all candidates before distinct, quotas and pagination, one strategy each.
///
/// `score` and `interleave` are produced lazily, so a merge that needs only the first few
/// entries reads only the heads of the sources; `rrf` is fused and sorted up front.
struct MergeOrder: IteratorProtocol {
    private let strategy: MergeOptions.Strategy
    private let sources: [SourceHits]
    /// `score`: the next rank of each source.
    private var heads: [Int]
    /// `interleave`: sources in request order, the current rank and the next source at it.
    private var order: [Int] = []
    private var rank = 0
    private var nextSource = 0
    private let longest: Int
    /// `rrf`: the fused documents in order, and the next one.
    private var fused: [Candidate] = []
    private var nextFused = 0

    init(_ sources: [SourceHits], options: MergeOptions) {
        self.sources = sources
        strategy = options.strategy
        heads = Array(repeating: 0, count: sources.count)
        longest = sources.reduce(0) { max($0, $1.hits.count) }
        switch strategy {
        case .score, .grouped:
            break
        case .interleave:
            order = sources.indices.sorted { (sources[$0].position, $0) < (sources[$1].position, $1) }
        case .rrf:
            fused = ReciprocalRankFusion.fuse(sources, k: options.k, identity: options.distinctKey)
        }
    }

    mutating func next() -> Candidate? {
        switch strategy {
        case .score, .grouped:
            guard let best = bestHead() else { return nil }
            heads[best] += 1
            return candidate(best, rank: heads[best] - 1)
        case .interleave:
            while rank < longest {
                while nextSource < order.count {
                    let s = order[nextSource]
                    nextSource += 1
                    if rank < sources[s].hits.count { return candidate(s, rank: rank) }
                }
                rank += 1
                nextSource = 0
            }
            return nil
        case .rrf:
            guard nextFused < fused.count else { return nil }
            nextFused += 1
            return fused[nextFused - 1]
        }
    }

    /// The source whose head goes first under ``FederatedMerge/precedes(_:_:)``.
    private func bestHead() -> Int? {
        var best: Int?
        var bestScore = 0.0
        for i in sources.indices where heads[i] < sources[i].hits.count {
            let score = sources[i].hits[heads[i]].rankingScore * sources[i].weight
            if let b = best {
                if FederatedMerge.precedes(
                    (score, sources[i].position, heads[i]), (bestScore, sources[b].position, heads[b]))
                {
                    best = i
                    bestScore = score
                }
            } else {
                best = i
                bestScore = score
            }
        }
        return best
    }

    /// The candidate for the hit at `rank` of source `s`, scored `_rankingScore × weight`.
    private func candidate(_ s: Int, rank: Int) -> Candidate {
        let source = sources[s]
        let hit = source.hits[rank]
        return Candidate(
            source: s,
            entry: MergedEntry(
                name: source.name, sourcePosition: source.position, rank: rank,
                weightedScore: hit.rankingScore * source.weight, hit: hit))
    }
}
