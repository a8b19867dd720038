/// A ranked candidate of one segment.
struct RankedEntry {
    var segment: Int
    var key: UInt128
}

extension SegmentedSearch {
    /// The page's candidates in global order, and the hit count: each segment offers its best
    /// keys (every key under `distinct`), and they are merged by ``KeyOrder``.
    func mergePage(_ parts: [SegmentQuery], page: PageRequest) -> (entries: [RankedEntry], nbHits: Int) {
        var entries: [RankedEntry] = []
        for (i, part) in parts.enumerated() { entries += (part.ranked?.keys ?? []).map { RankedEntry(segment: i, key: $0) } }
        guard let layout = parts.lazy.compactMap({ $0.ranked?.ranker.layout }).first else { return ([], 0) }
        let order = KeyOrder(layout: layout, segments: segments)
        entries.sort { order.less($0, $1) }
        let distinct = parts[0].executor.distinctLimit
        var nbHits = parts.reduce(0) { $0 + $1.match.docs.count }
        if distinct > 0 {
            var perGroup: [String: Int] = [:]
            entries = entries.filter { e in
                let s = segments[e.segment].snapshot
                let g = s.distinctKeys[Int(UInt32(truncatingIfNeeded: e.key))]
                if g == .max { return true }
                let value = s.distinctValues[Int(g)]
                let seen = perGroup[value, default: 0]
                perGroup[value] = seen + 1
                return seen < distinct
            }
            nbHits = entries.count
        }
        let end = min(page.end, entries.count)
        return (page.start < end ? Array(entries[page.start..<end]) : [], nbHits)
    }
}

/// The order of ranking keys across segments. Within one segment, keys compare as
/// integers. Across segments, every component compares as bits except the sort criteria
/// (`customRanking`, `asc(attr)`), whose ordinals are dense within a segment only: those
/// compare by the values behind them; and last come the document numbers of an index built
/// whole: `customRanking` order, then the documents' place (``IndexSnapshot/positions``).
struct KeyOrder {
    let segments: [Segment]
    /// From the most significant: a sort criterion's shift, and its ordinals and values in
    /// each segment.
    private let criteria: [(shift: Int, width: Int, ordinals: [[UInt32]], values: [[Double]])]
    /// Values per `customRanking` ordinal.
    private let customWidth: Int

    init(layout: RankingLayout, segments: [Segment]) {
        self.segments = segments
        var criteria: [(shift: Int, width: Int, ordinals: [[UInt32]], values: [[Double]])] = []
        for (field, shift) in layout.fields {
            switch field {
            case .custom:
                let width = segments[0].snapshot.settings.customRanking.count
                criteria.append((shift, width, segments.map(\.snapshot.customOrdinal), segments.map(\.snapshot.customValues)))
            case .sort(let rule):
                criteria.append(
                    (
                        shift, 1, segments.map { $0.snapshot.sortOrdinals[rule] ?? [] },
                        segments.map { $0.snapshot.sortValues[rule] ?? [] }
                    ))
            default:
                break
            }
        }
        self.criteria = criteria
        customWidth = segments[0].snapshot.settings.customRanking.count
    }

    /// Whether `a` ranks before `b`.
    func less(_ a: RankedEntry, _ b: RankedEntry) -> Bool {
        if a.segment == b.segment { return a.key < b.key }
        let docA = Int(UInt32(truncatingIfNeeded: a.key))
        let docB = Int(UInt32(truncatingIfNeeded: b.key))
        var high = 128  // bits at and above `high` are equal
        for c in criteria {
            let fieldTop = c.shift + RankField.custom.width
            if let r = Self.compare(a.key, b.key, from: fieldTop, below: high) { return r }
            let oa = Int(c.ordinals[a.segment][docA]) * c.width
            let ob = Int(c.ordinals[b.segment][docB]) * c.width
            for k in 0..<c.width {
                let x = c.values[a.segment][oa + k]
                let y = c.values[b.segment][ob + k]
                if x != y { return x < y }
            }
            high = c.shift
        }
        if let r = Self.compare(a.key, b.key, from: RankingLayout.documentBits, below: high) { return r }
        // The document numbers: a snapshot numbers its documents by `customRanking` (whether
        // the rules use it or not), equal ones by position.
        let sa = segments[a.segment].snapshot
        let sb = segments[b.segment].snapshot
        if customWidth > 0 {
            let oa = Int(sa.customOrdinal[docA]) * customWidth
            let ob = Int(sb.customOrdinal[docB]) * customWidth
            for k in 0..<customWidth {
                let x = sa.customValues[oa + k]
                let y = sb.customValues[ob + k]
                if x != y { return x < y }
            }
        }
        return sa.positions[docA] < sb.positions[docB]
    }

    /// Compares bits `from..<below` of two keys: nil when equal.
    private static func compare(_ a: UInt128, _ b: UInt128, from: Int, below: Int) -> Bool? {
        guard below > from else { return nil }
        let width = below - from
        let mask: UInt128 = width >= 128 ? ~0 : (UInt128(1) << width) - 1
        let x = (a >> from) & mask
        let y = (b >> from) & mask
        return x == y ? nil : x < y
    }
}
