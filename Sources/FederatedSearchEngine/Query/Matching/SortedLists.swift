/// Membership tests and intersections over ascending document lists and term bitmaps, read
/// through spans and written through output spans: the candidate loops of a query run over
/// every document of the rarest word, so these loops do no reference counting, no uniqueness
/// checks and no array growth per document.
enum SortedLists {
    /// The first index in `from..<to` where `before` fails, galloping from `from` (where it
    /// must hold): `before` holds on a prefix of the range. Cheap for the ascending lookups of
    /// an intersection, which land near where the previous one ended.
    @inline(__always) static func gallop(from: Int, to: Int, _ before: (Int) -> Bool) -> Int {
        var lo = from
        var step = 1
        var hi = from &+ 1
        while hi < to && before(hi) {
            lo = hi
            step &<<= 1
            hi = lo &+ step
        }
        if hi > to { hi = to }
        lo &+= 1
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if before(mid) { lo = mid &+ 1 } else { hi = mid }
        }
        return lo
    }

    /// The position of the first document ≥ `doc` in an ascending list of `n` documents
    /// (`at(i)` the i-th), searching from `from`.
    @inline(__always) static func seek(_ doc: UInt32, from: Int, count n: Int, _ at: (Int) -> UInt32) -> Int {
        if from >= n || at(from) >= doc { return from }
        return gallop(from: from, to: n) { at($0) < doc }
    }

    /// The documents of `docs` (ascending) that `list` (ascending) holds too.
    static func intersection(_ docs: Span<UInt32>, _ list: Span<UInt32>) -> [UInt32] {
        [UInt32](capacity: docs.count) { out in
            var at = 0
            for i in docs.indices {
                let d = docs[i]
                at = seek(d, from: at, count: list.count) { list[$0] }
                if at == list.count { break }
                if list[at] == d { out.append(d) }
            }
        }
    }

    /// The documents of `docs` whose bit is set in the bitmap of `bits` that starts at
    /// word `base`.
    static func filter(_ docs: Span<UInt32>, bits: Span<UInt64>, base: Int) -> [UInt32] {
        [UInt32](capacity: docs.count) { out in
            for i in docs.indices {
                let d = docs[i]
                if bits[base &+ Int(d >> 6)] & (1 << UInt64(d & 63)) != 0 { out.append(d) }
            }
        }
    }

    /// The documents set in every bitmap of `bits` starting at the words `bases` (at least
    /// one), each `wordCount` words long, for which `keep` holds, ascending. `capacity` must
    /// be at least their number: the number of set bits of any one of the bitmaps will do.
    static func and(
        bits: Span<UInt64>, bases: [Int], wordCount: Int, capacity: Int, keep: (UInt32) -> Bool
    ) -> [UInt32] {
        let first = bases[0]
        let rest = bases.dropFirst()
        return [UInt32](capacity: capacity) { out in
            for i in 0..<wordCount {
                var w = bits[first &+ i]
                for b in rest where w != 0 { w &= bits[b &+ i] }
                while w != 0 {
                    let d = UInt32(truncatingIfNeeded: i << 6 | w.trailingZeroBitCount)
                    w &= w &- 1
                    if keep(d) { out.append(d) }
                }
            }
        }
    }
}
