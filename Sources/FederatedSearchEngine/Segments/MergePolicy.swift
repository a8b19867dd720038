/// When an updated index's segments are merged, in two lanes that run side by side.
///
/// Searches pay for every segment a query meets, and most for the large ones: a segment's
/// term dictionary is walked for each prefix and typo expansion, and a large segment's
/// dictionary is nearly the whole vocabulary. So the policy keeps one large segment, the
/// base, and small ones beside it:
/// - the **small lane** merges the segments other than the base by tiers, as Lucene's and
///   tantivy's log merge policies do: tiers a factor of ``factor`` apart by size, and once a
///   tier holds ``factor`` segments they merge into one of the next tier, so a document is
///   rebuilt about log_factor(n) times while it is small. Segments under ``floor`` documents
///   (what single-document writes make) are one tier that merges as soon as it holds two:
///   a query then meets at most one of them, and such a merge costs well under a millisecond;
/// - the **base lane** folds everything into a new base once the others hold a ``baseShare``
///   of the base's documents (so a steady trickle rebuilds the base only every base/8
///   writes, and a growing index's base grows geometrically), or once a third of the base's
///   documents are deleted.
///   Once writes have stopped for a while, the base lane **settles** the index: it folds
///   everything into a new base if the others and the base's deleted documents come to a
///   ``settleShare`` of the base, so that an index at rest after more than a few changes is
///   searched as one segment. Writes that come in bursts rebuild the base at most once per
///   base/``settleShare`` documents changed (written or deleted).
/// A segment is in at most one running merge; the lanes never take the same one.
///
/// **Bounded merges.** No merge of several segments makes one of more than `maxDocuments` live
/// documents (as Lucene's tiered policy caps a merged segment's size), so that the memory a
/// merge holds beside the index it serves is bounded too: a segment built with the cap's
/// documents or more is *full*, never folded with others, and rebuilt alone only once a third
/// of it is deleted; the base is the largest segment that is not full, and a fold takes the
/// others, smallest first, only as far as the cap allows. An index larger than the cap is then
/// searched as several segments. A segment past the cap comes only from a whole build (at
/// start, after a settings change); its rebuild alone, once a third is deleted, is two thirds
/// of its size, not the cap.
enum MergePolicy {
    static let factor = 8
    /// Segments smaller than this are merged two at a time.
    static let floor = 256
    /// The others' documents, as a fraction of the base's, that start a base merge.
    static let baseShare = 8
    /// The same fraction for an index whose writes have stopped (see the settle fold).
    static let settleShare = 64

    /// Positions in `segments` of the ones the lane should merge now, if any; `busy` are
    /// segments of a merge already running in the other lane; `settling`: writes have
    /// stopped, so the base lane settles the index; no merge makes a segment of more than
    /// `maxDocuments` live documents.
    static func pick(
        _ segments: [Segment], lane: MergeLane, busy: Set<ObjectIdentifier> = [], settling: Bool = false, maxDocuments: Int = .max
    ) -> [Int]? {
        let free = segments.indices.filter { !busy.contains(ObjectIdentifier(segments[$0].data)) }
        // Full by the documents it was built with: a deletion does not make it a base again.
        let full = Set(segments.indices.filter { segments[$0].snapshot.documentCount >= maxDocuments })
        // A full segment is rebuilt alone, by the base lane, once a third of it is deleted.
        if lane == .base, let i = free.first(where: { full.contains($0) && isMostlyDeleted(segments[$0]) }) { return [i] }
        let open = segments.indices.filter { !full.contains($0) }
        guard let base = open.max(by: { segments[$0].liveCount < segments[$1].liveCount }) else { return nil }
        let lone = isMostlyDeleted(segments[base]) || (settling && segments[base].liveCount < segments[base].snapshot.documentCount)
        guard open.count > 1 || lone else { return nil }
        switch lane {
        case .base:
            guard free.contains(base) else { return nil }
            let b = segments[base]
            var others: [Int] = []
            var room = maxDocuments - b.liveCount
            for i in free.filter({ $0 != base && !full.contains($0) }).sorted(by: { segments[$0].liveCount < segments[$1].liveCount }) {
                guard segments[i].liveCount <= room else { break }
                others.append(i)
                room -= segments[i].liveCount
            }
            let rest = others.reduce(0) { $0 + segments[$1].liveCount }
            // A settle waits for a small merge under way (its completion plans again), so that
            // it folds everything at once rather than the base now and again after.
            let settles =
                settling && free.count == segments.count
                && (rest + b.snapshot.documentCount - b.liveCount) * settleShare >= b.liveCount
            if rest * baseShare >= b.liveCount || isMostlyDeleted(b) || settles {
                return [base] + others.sorted()
            }
            return nil
        case .small:
            let small = free.filter { $0 != base && !full.contains($0) }
            for i in small where isMostlyDeleted(segments[i]) { return [i] }
            var tiers: [Int: [Int]] = [:]
            for i in small { tiers[tier(segments[i].liveCount), default: []].append(i) }
            for t in tiers.keys.sorted() where tiers[t]!.count >= (t == 0 ? 2 : factor) {
                // As many of the tier as the cap allows (at least two, or none).
                var picked: [Int] = []
                var total = 0
                for i in tiers[t]! where total + segments[i].liveCount <= maxDocuments {
                    picked.append(i)
                    total += segments[i].liveCount
                }
                if picked.count >= 2 { return picked }
            }
            return nil
        }
    }

    /// Whether a third of a segment's documents are deleted (and it is not tiny).
    static func isMostlyDeleted(_ s: Segment) -> Bool {
        let total = s.snapshot.documentCount
        return total >= factor * factor && (total - s.liveCount) * 3 >= total
    }

    /// 0 below `floor` documents, then one more per factor.
    static func tier(_ count: Int) -> Int {
        var t = 0
        var n = count / floor
        while n > 0 {
            n /= factor
            t += 1
        }
        return t
    }
}

/// Which kind of merge (see ``MergePolicy``).
public enum MergeLane: Sendable, CaseIterable {
    /// Everything into a new base.
    case base
    /// Small segments by tiers.
    case small
}
