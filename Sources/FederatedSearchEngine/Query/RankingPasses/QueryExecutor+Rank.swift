import FederatedSearchCore

/// Ranking keys in order with what computed them.
struct RankedKeys {
    var keys: [UInt128]
    var ranker: Ranker
    var visitor: RankVisitor
}

/// The ranked page: its documents in display order with their word hits, and the hit count.
struct RankedPage {
    var nbHits: Int
    var docs: [UInt32]
    /// Word hits of `docs`, row by row (`ranker.words.count` per row).
    var hits: [UInt32]
    var ranker: Ranker
}

extension QueryExecutor {
    /// The ranking rules in force: the index's, or for `matchingStrategy: any`, BM25 then the
    /// index's sort criteria.
    func rules(for parsed: ParsedQuery) -> [RankingRule] {
        let configured = index.settings.ranking
        guard parameters.matchingStrategy == .any else { return configured }
        return [.bm25]
            + configured.filter {
                switch $0 {
                case .custom, .sort: return true
                default: return false
                }
            }
    }

    /// The distinct setting in force: hits kept per `attributeForDistinct` value (0: off).
    var distinctLimit: Int {
        let distinct = parameters.distinct ?? index.settings.distinct
        return index.distinctKeys.isEmpty ? 0 : distinct
    }

    mutating func rank(_ m: TextMatch, parsed: ParsedQuery, page: PageRequest) throws -> RankedPage {
        let ranked = try rankKeys(m, parsed: parsed, page: page, stats: CorpusStats(index: index, live: live, match: m))
        let distinct = distinctLimit
        if distinct > 0 {
            var perGroup: [UInt32: Int] = [:]
            let kept = ranked.keys.filter { k in
                let g = index.distinctKeys[Int(UInt32(truncatingIfNeeded: k))]
                if g == .max { return true }
                let seen = perGroup[g, default: 0]
                perGroup[g] = seen + 1
                return seen < distinct
            }
            let pageKeys = page.start < kept.count ? Array(kept[page.start..<min(page.end, kept.count)]) : []
            return makePage(pageKeys, match: m, ranker: ranked.ranker, visitor: ranked.visitor, nbHits: kept.count)
        }
        let pageKeys = page.start < ranked.keys.count ? Array(ranked.keys[page.start...]) : []
        return makePage(pageKeys, match: m, ranker: ranked.ranker, visitor: ranked.visitor, nbHits: m.docs.count)
    }

    /// The ranking layout of a parsed query.
    func layout(for parsed: ParsedQuery) -> RankingLayout {
        RankingLayout(
            rules: rules(for: parsed), wordCount: parsed.words.count,
            hasOptional: parsed.words.contains { $0.isOptional }, typos: typoMode != .disabled,
            geo: parameters.aroundLatLng != nil, hasCustom: !index.settings.customRanking.isEmpty,
            sortRules: Set(index.sortOrdinals.keys))
    }

    /// The ranking keys of the match, best first: with `distinct`, every candidate's (the
    /// groups are counted on them), else the best `page.end`.
    mutating func rankKeys(_ m: TextMatch, parsed: ParsedQuery, page: PageRequest, stats: CorpusStats) throws -> RankedKeys {
        let ranker = Ranker(index: index, words: m.words, layout: layout(for: parsed), center: parameters.aroundLatLng, stats: stats)
        let visitor = RankVisitor(match: m, text: index.text)
        var visit = visitor
        var row = [UInt32](repeating: .max, count: m.words.count)
        if distinctLimit > 0 {
            var keys: [UInt128] = []
            keys.reserveCapacity(m.docs.count)
            for (r, d) in m.docs.enumerated() {
                if r & 4095 == 4095 { try check.now() }
                visit.hits(r, d, into: &row)
                keys.append(ranker.key(doc: d, hits: row, base: 0))
            }
            keys.sort()
            return RankedKeys(keys: keys, ranker: ranker, visitor: visitor)
        }
        var top = TopKeys(k: page.end)
        if page.end > 0 {
            if pruning {
                try rankPruned(m, ranker: ranker, visitor: visitor, requiredCount: parsed.requiredCount, top: &top)
            } else {
                for (r, d) in m.docs.enumerated() {
                    if r & 4095 == 4095 { try check.now() }
                    visit.hits(r, d, into: &row)
                    top.offer(ranker.key(doc: d, hits: row, base: 0))
                }
            }
        }
        return RankedKeys(keys: top.keys, ranker: ranker, visitor: visitor)
    }

    /// The page's documents (from the keys' low bits) with their hits, looked up in ascending
    /// document order with one visitor (its cursors only move forward).
    func makePage(_ keys: [UInt128], match m: TextMatch, ranker: Ranker, visitor: RankVisitor, nbHits: Int) -> RankedPage {
        let w = m.words.count
        let docs = keys.map { UInt32(truncatingIfNeeded: $0) }
        var hits = [UInt32](repeating: .max, count: docs.count * w)
        var row = [UInt32](repeating: .max, count: w)
        var visit = visitor
        for i in docs.indices.sorted(by: { docs[$0] < docs[$1] }) {
            let d = docs[i]
            visit.hits(m.row(of: d) ?? 0, d, into: &row)
            for k in 0..<w { hits[i * w + k] = row[k] }
        }
        return RankedPage(nbHits: nbHits, docs: docs, hits: hits, ranker: ranker)
    }

    mutating func countFacets(_ m: TextMatch, filters: FilterPlan) throws -> (counts: [FacetCounts], stats: [FacetStats]) {
        let p = parameters
        let counter = FacetCounter(index: index)
        let fields = counter.resolve(p.facets + p.disjunctiveFacets)
        guard !fields.isEmpty else { return ([], []) }
        let counts =
            filters.isDisjunctive
            ? try counter.countDisjunctive(m.textDocs, base: filters.base, groups: filters.groups, fields: fields, check: &check)
            : try counter.count(m.docs, fields: fields, check: &check)
        let facetCounts = fields.enumerated().map { k, f in
            counter.top(counts[k], field: f, limit: p.maxValuesPerFacet, order: p.sortFacetValuesBy)
        }
        let stats = fields.compactMap { counter.stats(m.docs, field: $0) }
        return (facetCounts, stats)
    }
}

/// The word hits of the candidates, row by row in ascending order: copied from the match's
/// table when it has one, else looked up as ranking visits each document.
struct RankVisitor {
    /// The match's table; `.none` (unused) when `hasTable` is false. Not an optional: binding
    /// one would copy the table, and retain its storage, for every row.
    let table: HitTable
    let hasTable: Bool
    var cursors: HitCursors

    init(match m: TextMatch, text: TextIndex) {
        table = m.hits ?? .none
        hasTable = m.hits != nil
        cursors = HitCursors(words: m.words, text: text)
    }

    /// The hits of row `r` (document `d`) into `row`.
    @inline(__always) mutating func hits(_ r: Int, _ d: UInt32, into row: inout [UInt32]) {
        if hasTable { table.copyRow(r, into: &row, at: 0) } else { cursors.fill(d, into: &row, at: 0) }
    }
}
