import FederatedSearchCore

/// The ranked page: rows of ``TextMatch/docs`` in display order, and the hit count.
struct RankedPage {
    var nbHits: Int
    var rows: [Int]
    var ranker: Ranker
}

extension QueryExecutor {
    /// The ranking rules in force: the index's, or for `matchingStrategy: any`, BM25 then the
    /// index's sort criteria.
    func rules(for parsed: ParsedQuery) -> [RankingRule] {
        let configured = index.settings.ranking
        guard parameters.matchingStrategy == .any else { return configured }
        return [.bm25] + configured.filter {
            switch $0 {
            case .custom, .sort: return true
            default: return false
            }
        }
    }

    mutating func rank(_ m: TextMatch, parsed: ParsedQuery, page: PageRequest) throws -> RankedPage {
        let p = parameters
        let layout = RankingLayout(
            rules: rules(for: parsed), wordCount: parsed.words.count,
            hasOptional: parsed.words.contains { $0.isOptional }, typos: typoMode != .disabled,
            geo: p.aroundLatLng != nil, hasCustom: !index.settings.customRanking.isEmpty,
            sortRules: Set(index.sortOrdinals.keys))
        let ranker = Ranker(index: index, words: m.words, layout: layout, center: p.aroundLatLng)
        let distinct = p.distinct ?? index.settings.distinct
        var pageKeys: [UInt128]
        var nbHits = m.docs.count
        if distinct > 0 && !index.distinctKeys.isEmpty {
            var keys: [UInt128] = []
            keys.reserveCapacity(m.docs.count)
            for (row, d) in m.docs.enumerated() {
                if row & 4095 == 4095 { try check.now() }
                keys.append(ranker.key(doc: d, hits: m.hits, row: row))
            }
            keys.sort()
            var perGroup: [UInt32: Int] = [:]
            var kept: [UInt128] = []
            for k in keys {
                let g = index.distinctKeys[Int(UInt32(truncatingIfNeeded: k))]
                if g != .max {
                    let seen = perGroup[g, default: 0]
                    if seen >= distinct { continue }
                    perGroup[g] = seen + 1
                }
                kept.append(k)
            }
            nbHits = kept.count
            pageKeys = page.start < kept.count ? Array(kept[page.start..<min(page.end, kept.count)]) : []
        } else {
            var top = TopKeys(k: page.end)
            for (row, d) in m.docs.enumerated() {
                if row & 4095 == 4095 { try check.now() }
                top.offer(ranker.key(doc: d, hits: m.hits, row: row))
            }
            pageKeys = page.start < top.keys.count ? Array(top.keys[page.start...]) : []
        }
        let rows = pageKeys.map { k -> Int in
            let d = UInt32(truncatingIfNeeded: k)
            var lo = 0, hi = m.docs.count
            while lo < hi {
                let mid = (lo + hi) >> 1
                if m.docs[mid] < d { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        return RankedPage(nbHits: nbHits, rows: rows, ranker: ranker)
    }

    mutating func countFacets(_ m: TextMatch, filters: FilterPlan) throws -> (counts: [FacetCounts], stats: [FacetStats]) {
        let p = parameters
        let counter = FacetCounter(index: index)
        let fields = counter.resolve(p.facets + p.disjunctiveFacets)
        guard !fields.isEmpty else { return ([], []) }
        let counts = filters.isDisjunctive
            ? try counter.countDisjunctive(m.textDocs, base: filters.base, groups: filters.groups, fields: fields, check: &check)
            : try counter.count(m.docs, fields: fields, check: &check)
        let facetCounts = fields.enumerated().map { k, f in
            counter.top(counts[k], field: f, limit: p.maxValuesPerFacet, order: p.sortFacetValuesBy)
        }
        let stats = fields.compactMap { counter.stats(m.docs, field: $0) }
        return (facetCounts, stats)
    }
}
