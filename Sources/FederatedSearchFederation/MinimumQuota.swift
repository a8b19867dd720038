/// Step 3 of the merge: `minPerIndex`, over the window of the first `limit` positions.
///
/// The rule, applied to the filtered order `F`:
/// 1. Each source's target is min(its quota, `limit`, its hits in `F`). If the targets add up
///    to more than `limit`, sources are served in request order until the window is full
///    (a later source's target shrinks to what is left).
/// 2. A source with fewer hits than its target in the window (`F`'s first `limit` entries)
///    has its next hits of `F` promoted, as many as it lacks.
/// 3. As many window entries make room: the latest ones whose source has more hits in the
///    window than its target, from the end of the window backwards.
/// 4. The full order is: the window's remaining entries, the promoted hits (they take the
///    latest positions of the window), the entries that made room, then the rest of `F`;
///    each group in `F` order.
///
/// The window is the first `limit` positions whatever the `offset`, so page 2 continues
/// page 1: the entries that made room open page 2, the promoted hits are not repeated.
enum MinimumQuota {
    /// Applies the rule to `merged` (`F`, at least its first `window` entries and each
    /// source's first `minimum` entries); `minimum[s]` is already capped at `window`.
    static func apply(_ merged: [Candidate], sources: [SourceHits], minimum: [Int], window: Int) -> [Candidate] {
        guard merged.count > window else { return merged }
        var available = Array(repeating: 0, count: sources.count)
        var inWindow = Array(repeating: 0, count: sources.count)
        for (i, c) in merged.enumerated() {
            available[c.source] += 1
            if i < window { inWindow[c.source] += 1 }
        }
        var target = Array(repeating: 0, count: sources.count)
        var budget = window
        for s in sources.indices.sorted(by: { (sources[$0].position, $0) < (sources[$1].position, $1) }) {
            target[s] = min(minimum[s], available[s], budget)
            budget -= target[s]
        }
        var lacking = sources.indices.map { max(0, target[$0] - inWindow[$0]) }
        var promoted: [Int] = []
        for i in window..<merged.count where lacking[merged[i].source] > 0 {
            lacking[merged[i].source] -= 1
            promoted.append(i)
        }
        guard !promoted.isEmpty else { return merged }
        var surplus = sources.indices.map { inWindow[$0] - target[$0] }
        var demoted: [Int] = []
        for i in stride(from: window - 1, through: 0, by: -1) where demoted.count < promoted.count {
            if surplus[merged[i].source] > 0 {
                surplus[merged[i].source] -= 1
                demoted.append(i)
            }
        }
        demoted.reverse()
        var moved = Array(repeating: false, count: merged.count)
        for i in promoted + demoted { moved[i] = true }
        var out: [Candidate] = []
        out.reserveCapacity(merged.count)
        for i in 0..<window where !moved[i] { out.append(merged[i]) }
        for i in promoted { out.append(merged[i]) }
        for i in demoted { out.append(merged[i]) }
        for i in window..<merged.count where !moved[i] { out.append(merged[i]) }
        return out
    }
}
