/// `_rankingInfo.userScore`: the live documents of the whole index less those that
/// `customRanking` puts strictly before the hit. It comes from the documents' values, so an
/// index split into segments, with deletions, gives each hit the score an index built whole
/// from the same live documents gives it (ordinals are only dense per segment: a hit's values
/// are looked up in each segment's table of values).
struct UserScores {
    /// Each segment's snapshot and live documents (nil: all live).
    let segments: [(snapshot: IndexSnapshot, live: LiveDocuments?)]
    private let liveTotal: Int
    /// Per segment, the `customRanking` ordinals of its deleted documents, ascending.
    private let deletedOrdinals: [[UInt32]]

    init(_ segments: [(snapshot: IndexSnapshot, live: LiveDocuments?)]) {
        self.segments = segments
        liveTotal = segments.reduce(0) { $0 + ($1.live?.count ?? $1.snapshot.documentCount) }
        deletedOrdinals = segments.map { s in
            (s.live?.deletedSince(nil) ?? []).map { s.snapshot.customOrdinal[Int($0)] }.sorted()
        }
    }

    /// The user score of document `doc` of segment `segment`.
    func score(segment: Int, doc: UInt32) -> Int {
        let own = segments[segment].snapshot
        let ordinal = Int(own.customOrdinal[Int(doc)])
        let width = own.settings.customRanking.count
        guard width > 0 else { return liveTotal }
        let values = own.customValues[ordinal * width..<(ordinal + 1) * width]
        var before = 0
        for (i, s) in segments.enumerated() {
            let under = i == segment ? ordinal : Self.ordinalsBefore(values, in: s.snapshot.customValues, width: width)
            let distinct = s.snapshot.customValues.count / width
            before += s.snapshot.customRankCounts.below(s.snapshot.customOrdinal, distinct: distinct)[under]
            before -= Self.countBelow(UInt32(under), in: deletedOrdinals[i])
        }
        return liveTotal - before
    }

    /// How many of a segment's ordinals (rows of `table`, ascending) have values strictly
    /// before `values`, compared criterion by criterion.
    static func ordinalsBefore(_ values: ArraySlice<Double>, in table: [Double], width: Int) -> Int {
        func less(_ row: Int) -> Bool {
            for (c, v) in values.enumerated() {
                let x = table[row * width + c]
                if x != v { return x < v }
            }
            return false
        }
        var lo = 0
        var hi = table.count / width
        while lo < hi {
            let mid = (lo + hi) / 2
            if less(mid) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// How many of the ascending `ordinals` are under `limit`.
    static func countBelow(_ limit: UInt32, in ordinals: [UInt32]) -> Int {
        var lo = 0
        var hi = ordinals.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if ordinals[mid] < limit { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
