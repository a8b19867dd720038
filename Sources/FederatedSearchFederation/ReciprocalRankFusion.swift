import FederatedSearchCore

/// Reciprocal rank fusion of several ranked lists.
///
/// A document's fused score is Σ weight / (k + rank + 1) over the sources it appears in.
/// - Identity: the hit's `distinctKey` value when one is set and the hit has it, else its
///   `objectID`. The same document in two sources (or in one index asked twice under two
///   names) therefore accumulates; unrelated indices whose objectIDs collide should set a
///   `distinctKey` that is unique across them.
/// - Within one source only the first (best-ranked) occurrence of a document counts.
/// - A fused document is represented by its occurrence with the largest contribution
///   (ties: the earlier source); that occurrence gives its name, position, rank and hit, and
///   it counts against that source's quotas.
enum ReciprocalRankFusion {
    private enum Identity: Hashable {
        case key(DistinctValue)
        case objectID(String)
    }

    /// Every fused document, in merged order: fused score descending, then the
    /// representative's request position, then its rank.
    static func fuse(_ sources: [SourceHits], k: Int, identity key: String?) -> [Candidate] {
        var slot: [Identity: Int] = [:]
        var fused: [Candidate] = []
        var best: [Double] = []
        let order = sources.indices.sorted { (sources[$0].position, $0) < (sources[$1].position, $1) }
        for s in order {
            let source = sources[s]
            var seenHere: Set<Identity> = []
            for (rank, hit) in source.hits.enumerated() {
                let id = key.flatMap { DistinctValue(hit, attribute: $0) }.map(Identity.key) ?? .objectID(hit.objectID)
                guard seenHere.insert(id).inserted else { continue }
                let contribution = source.weight / Double(k + rank + 1)
                let entry = MergedEntry(
                    name: source.name, sourcePosition: source.position, rank: rank, weightedScore: contribution, hit: hit)
                if let i = slot[id] {
                    let total = fused[i].entry.weightedScore + contribution
                    if contribution > best[i] {
                        fused[i] = Candidate(source: s, entry: entry)
                        best[i] = contribution
                    }
                    fused[i].entry.weightedScore = total
                } else {
                    slot[id] = fused.count
                    fused.append(Candidate(source: s, entry: entry))
                    best.append(contribution)
                }
            }
        }
        fused.sort { FederatedMerge.precedes($0.entry, $1.entry) }
        return fused
    }
}
