import FederatedSearchCore

/// Merges the ranked lists of a federated request into one list, with exact global
/// pagination: a page is a slice of one well-defined full merged order.
///
/// The full merged order is built in three steps:
/// 1. **Strategy order** of every hit: `score` is a k-way merge of the sources (each a sorted
///    run) by `_rankingScore × weight`, ties by request order then rank; `interleave` is round
///    robin by rank in request order (rank 0 of every source, then rank 1, ...); `rrf` fuses
///    the lists (see ``ReciprocalRankFusion``) and sorts by fused score, ties as for `score`.
/// 2. **Filter**, in that order: a hit whose source already has `maxPerIndex` hits is skipped;
///    a hit whose `distinctKey` value already appeared is dropped (first occurrence wins; hits
///    without a value are kept). Only hits that stay count towards caps and mark values.
/// 3. **Minimum quotas** over the window of the first `limit` positions (the first page; see
///    ``MinimumQuota``).
///
/// The order depends on `limit` but not on `offset`, so pages of equal `limit` concatenate
/// to the full order with no duplicate and no hole.
///
/// Each source needs only its first ``MergeOptions/fetchDepth`` hits for the page to equal
/// the page of complete lists, when `distinctKey` is not set, or when its values are unique
/// within each source and `minPerIndex` is not set, and for `rrf` when no document is in two
/// sources. Otherwise a truncated source can lose hits the full order would have used (a
/// later hit of a source whose earlier ones were dropped; an occurrence that adds to a fused
/// score): the page is then the exact page of the truncated lists, still without duplicates.
public enum FederatedMerge {
    /// The entries at positions `offset ..< offset + limit` of the full merged order;
    /// empty for `grouped`.
    public static func merge(_ sources: [SourceHits], options: MergeOptions) -> [MergedEntry] {
        guard options.strategy != .grouped, options.limit > 0 else { return [] }
        if sources.count == 1, options.strategy != .rrf, options.distinctKey == nil,
            options.minPerIndex.isEmpty, options.maxPerIndex.isEmpty
        {
            return single(sources[0], options: options)
        }
        let window = options.limit
        let minimum = sources.map { min(options.minPerIndex.value(for: $0.name) ?? 0, window) }
        var filter = MergeFilter(sources, options: options)
        var order = MergeOrder(sources, options: options)
        var merged: [Candidate] = []
        var counts = Array(repeating: 0, count: sources.count)
        var short = minimum.indices.filter { minimum[$0] > 0 }
        while merged.count < options.fetchDepth || !short.isEmpty, let c = order.next() {
            guard filter.admit(c) else { continue }
            merged.append(c)
            counts[c.source] += 1
            if counts[c.source] == minimum[c.source] { short.removeAll { $0 == c.source } }
        }
        if minimum.contains(where: { $0 > 0 }) {
            merged = MinimumQuota.apply(merged, sources: sources, minimum: minimum, window: window)
        }
        guard options.offset < merged.count else { return [] }
        return merged[options.offset..<min(merged.count, options.fetchDepth)].map(\.entry)
    }

    /// One source under `score` or `interleave` with no quota and no `distinctKey`: the full
    /// order is the source's own, so the page is a slice of it (what the general path gives,
    /// without a candidate per hit).
    private static func single(_ source: SourceHits, options: MergeOptions) -> [MergedEntry] {
        let end = min(source.hits.count, options.fetchDepth)
        guard options.offset < end else { return [] }
        return (options.offset..<end).map { rank in
            let hit = source.hits[rank]
            return MergedEntry(
                name: source.name, sourcePosition: source.position, rank: rank,
                weightedScore: hit.rankingScore * source.weight, hit: hit)
        }
    }

    /// Whether `a` goes before `b`: higher `weightedScore` first, then the earlier source in
    /// the request, then the better rank. The order of `score` and `rrf`.
    public static func precedes(_ a: MergedEntry, _ b: MergedEntry) -> Bool {
        precedes((a.weightedScore, a.sourcePosition, a.rank), (b.weightedScore, b.sourcePosition, b.rank))
    }

    /// ``precedes(_:_:)`` on (score, source position, rank) triples.
    static func precedes(_ a: (Double, Int, Int), _ b: (Double, Int, Int)) -> Bool {
        if a.0 != b.0 { return a.0 > b.0 }
        if a.1 != b.1 { return a.1 < b.1 }
        return a.2 < b.2
    }
}

/// Step 2 of the merge: `maxPerIndex` caps, then `distinctKey`, over the strategy order.
struct MergeFilter {
    private let caps: [Int?]
    private var counts: [Int]
    private let distinctKey: String?
    private var seen: Set<DistinctValue> = []

    init(_ sources: [SourceHits], options: MergeOptions) {
        caps = sources.map { options.maxPerIndex.value(for: $0.name) }
        counts = Array(repeating: 0, count: sources.count)
        // RRF already fused documents by their distinct value.
        distinctKey = options.strategy == .rrf ? nil : options.distinctKey
    }

    /// Whether `c` stays in the merged order; records it if so.
    mutating func admit(_ c: Candidate) -> Bool {
        if let cap = caps[c.source], counts[c.source] >= cap { return false }
        if let key = distinctKey, let value = DistinctValue(c.entry.hit, attribute: key) {
            guard seen.insert(value).inserted else { return false }
        }
        counts[c.source] += 1
        return true
    }
}
