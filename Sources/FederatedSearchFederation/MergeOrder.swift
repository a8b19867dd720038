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
    private enum Kind {
        case score(heads: [Int])
        case interleave(order: [Int], rank: Int, next: Int)
        case fused(entries: [Candidate], next: Int)
    }

    private let sources: [SourceHits]
    private var kind: Kind

    init(_ sources: [SourceHits], options: MergeOptions) {
        self.sources = sources
        switch options.strategy {
        case .score, .grouped:
            kind = .score(heads: Array(repeating: 0, count: sources.count))
        case .interleave:
            let order = sources.indices.sorted { (sources[$0].position, $0) < (sources[$1].position, $1) }
            kind = .interleave(order: order, rank: 0, next: 0)
        case .rrf:
            kind = .fused(entries: ReciprocalRankFusion.fuse(sources, k: options.k, identity: options.distinctKey), next: 0)
        }
    }

    mutating func next() -> Candidate? {
        switch kind {
        case .score(var heads):
            guard let best = bestHead(heads) else { return nil }
            let c = candidate(best, rank: heads[best])
            heads[best] += 1
            kind = .score(heads: heads)
            return c
        case .interleave(let order, var rank, var next):
            let longest = sources.reduce(0) { max($0, $1.hits.count) }
            while rank < longest {
                while next < order.count {
                    let s = order[next]
                    next += 1
                    if rank < sources[s].hits.count {
                        kind = .interleave(order: order, rank: rank, next: next)
                        return candidate(s, rank: rank)
                    }
                }
                rank += 1
                next = 0
            }
            kind = .interleave(order: order, rank: rank, next: next)
            return nil
        case .fused(let entries, let next):
            guard next < entries.count else { return nil }
            kind = .fused(entries: entries, next: next + 1)
            return entries[next]
        }
    }

    /// The source whose head goes first under ``FederatedMerge/precedes(_:_:)``.
    private func bestHead(_ heads: [Int]) -> Int? {
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
        return Candidate(source: s, entry: MergedEntry(
            name: source.name, sourcePosition: source.position, rank: rank,
            weightedScore: hit.rankingScore * source.weight, hit: hit))
    }
}
