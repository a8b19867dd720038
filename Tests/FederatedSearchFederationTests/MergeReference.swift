import FederatedSearchCore
@testable import FederatedSearchFederation

/// An independent, deliberately naive statement of the merge rules: full sorts instead of a
/// k-way merge, dictionaries instead of streaming, one swap at a time for quotas. It returns
/// the FULL merged order; tests slice it.
enum MergeReference {
    struct Item: Equatable {
        var source: Int
        var entry: MergedEntry
    }

    static func fullOrder(_ sources: [SourceHits], _ options: MergeOptions) -> [MergedEntry] {
        quotas(filter(strategyOrder(sources, options), sources, options), sources, options).map(\.entry)
    }

    static func item(_ sources: [SourceHits], _ s: Int, _ rank: Int, score: Double) -> Item {
        Item(
            source: s,
            entry: MergedEntry(
                name: sources[s].name, sourcePosition: sources[s].position, rank: rank, weightedScore: score,
                hit: sources[s].hits[rank]))
    }

    /// Step 1: every hit in strategy order.
    static func strategyOrder(_ sources: [SourceHits], _ options: MergeOptions) -> [Item] {
        var all: [Item] = []
        for (s, source) in sources.enumerated() {
            for (rank, hit) in source.hits.enumerated() {
                all.append(item(sources, s, rank, score: hit.rankingScore * source.weight))
            }
        }
        func ranked(_ i: Item) -> RankedHit {
            RankedHit(sourcePosition: i.entry.sourcePosition, rank: i.entry.rank, score: i.entry.weightedScore, hit: i.entry.hit)
        }
        switch options.strategy {
        case .score, .grouped:
            return all.sorted { ScoreMerge.precedes(ranked($0), ranked($1)) }
        case .interleave:
            return all.sorted { ($0.entry.rank, $0.entry.sourcePosition) < ($1.entry.rank, $1.entry.sourcePosition) }
        case .rrf:
            return rrf(sources, options).sorted { ScoreMerge.precedes(ranked($0), ranked($1)) }
        }
    }

    /// Fused documents: identity by distinct value else objectID; first occurrence per
    /// source; representative = largest contribution, earliest source on ties.
    static func rrf(_ sources: [SourceHits], _ options: MergeOptions) -> [Item] {
        func identity(_ hit: Hit) -> String {
            if let key = options.distinctKey {
                if key == "objectID" { return "k:\"\(hit.objectID)\"" }
                if let v = hit.attributes[key], v != .null { return "k:" + JSONWriter.string(v) }
            }
            return "o:" + hit.objectID
        }
        var occurrences: [String: [(s: Int, rank: Int, contribution: Double)]] = [:]
        for s in sources.indices {
            var seen: Set<String> = []
            for (rank, hit) in sources[s].hits.enumerated() where seen.insert(identity(hit)).inserted {
                occurrences[identity(hit), default: []].append(
                    (s, rank, sources[s].weight / Double(options.k + rank + 1)))
            }
        }
        return occurrences.values.map { list in
            let byPosition = list.sorted { sources[$0.s].position < sources[$1.s].position }
            let sum = byPosition.reduce(0.0) { $0 + $1.contribution }
            var rep = byPosition[0]
            for o in byPosition.dropFirst() where o.contribution > rep.contribution { rep = o }
            return item(sources, rep.s, rep.rank, score: sum)
        }
    }

    /// Step 2: caps, then distinct values, first occurrence wins.
    static func filter(_ items: [Item], _ sources: [SourceHits], _ options: MergeOptions) -> [Item] {
        var kept: [Item] = []
        var seen: [JSONValue] = []
        for i in items {
            if let cap = options.maxPerIndex.value(for: sources[i.source].name),
                kept.filter({ $0.source == i.source }).count >= cap
            {
                continue
            }
            if options.strategy != .rrf, let key = options.distinctKey {
                let v: JSONValue? = key == "objectID" ? .string(i.entry.hit.objectID) : i.entry.hit.attributes[key]
                if let v, v != .null {
                    if seen.contains(v) { continue }
                    seen.append(v)
                }
            }
            kept.append(i)
        }
        return kept
    }

    /// Step 3: one promotion and one demotion at a time, until no source lacks hits.
    static func quotas(_ f: [Item], _ sources: [SourceHits], _ options: MergeOptions) -> [Item] {
        let window = options.limit
        guard f.count > window else { return f }
        var target = Array(repeating: 0, count: sources.count)
        var budget = window
        for s in sources.indices.sorted(by: { sources[$0].position < sources[$1].position }) {
            let quota = min(options.minPerIndex.value(for: sources[s].name) ?? 0, window)
            target[s] = min(quota, f.filter { $0.source == s }.count, budget)
            budget -= target[s]
        }
        var kept = Array(0..<window)
        var promoted: [Int] = []
        var demoted: [Int] = []
        var rest = Array(window..<f.count)
        func inWindow(_ s: Int) -> Int { (kept + promoted).filter { f[$0].source == s }.count }
        while let s = sources.indices.sorted(by: { sources[$0].position < sources[$1].position })
            .first(where: { inWindow($0) < target[$0] })
        {
            let p = rest.first { f[$0].source == s }!
            rest.removeAll { $0 == p }
            promoted.append(p)
            let d = kept.last { inWindow(f[$0].source) > target[f[$0].source] }!
            kept.removeAll { $0 == d }
            demoted.append(d)
        }
        return (kept.sorted() + promoted.sorted() + demoted.sorted() + rest.sorted()).map { f[$0] }
    }
}
