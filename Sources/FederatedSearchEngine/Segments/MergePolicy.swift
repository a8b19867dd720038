/// When an updated index's segments are merged: a tiered policy, as Lucene's and tantivy's
/// log merge policies. Segments fall into tiers by size, a factor of ``factor`` apart; once a
/// tier holds ``factor`` segments they merge into one of the next tier, so a document is
/// rebuilt about log_factor(N) times over its life and a query meets a few segments per tier.
/// A segment that has lost a third of its documents to deletions is rebuilt alone, so that
/// deleted documents do not pile up in a large segment that no tier merge reaches.
enum MergePolicy {
    static let factor = 8

    /// Positions in `segments` of the ones to merge now, if any.
    static func pick(_ segments: [Segment]) -> [Int]? {
        for (i, s) in segments.enumerated() {
            let total = s.snapshot.documentCount
            if total >= factor * factor && (total - s.liveCount) * 3 >= total { return [i] }
        }
        var tiers: [Int: [Int]] = [:]
        for (i, s) in segments.enumerated() { tiers[tier(s.liveCount), default: []].append(i) }
        for t in tiers.keys.sorted() where tiers[t]!.count >= factor { return tiers[t] }
        return nil
    }

    /// 0 below `factor` documents, then one more per factor.
    static func tier(_ count: Int) -> Int {
        var t = 0, n = count
        while n >= factor {
            n /= factor
            t += 1
        }
        return t
    }
}
