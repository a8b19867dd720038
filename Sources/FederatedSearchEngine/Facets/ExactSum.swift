/// A sum of doubles that does not depend on the order they were added in: it keeps the exact
/// sum as non-overlapping partials (Shewchuk's algorithm, as Python's `math.fsum`) and rounds
/// once, correctly, at the end. So `facets_stats` sums and averages are the same bit for bit
/// however the documents are split into segments and in whatever order they are visited.
struct ExactSum {
    /// Non-overlapping partials, smallest magnitude first; their exact sum is the sum.
    private var partials: [Double] = []
    /// Infinities and NaN, which the partials cannot hold, summed apart.
    private var special = 0.0

    mutating func add(_ value: Double) {
        guard value.isFinite else {
            special += value
            return
        }
        var x = value
        var kept = 0
        for i in partials.indices {
            var y = partials[i]
            if abs(x) < abs(y) { swap(&x, &y) }
            let hi = x + y
            let lo = y - (hi - x)
            if lo != 0 {
                partials[kept] = lo
                kept += 1
            }
            x = hi
        }
        partials.removeSubrange(kept...)
        // A partial that overflowed is an infinity: summed apart, as a special value.
        if x.isFinite { partials.append(x) } else { special += x }
    }

    mutating func add(_ other: ExactSum) {
        for p in other.partials { add(p) }
        special += other.special
    }

    /// The exact sum, correctly rounded to a double.
    var value: Double {
        guard special == 0 else { return special }
        var n = partials.count
        guard n > 0 else { return 0 }
        n -= 1
        var hi = partials[n]
        var lo = 0.0
        while n > 0 {
            let x = hi
            n -= 1
            let y = partials[n]
            hi = x + y
            lo = y - (hi - x)
            if lo != 0 { break }
        }
        // Round half to even across the partials below, as fsum does: when the rest lies
        // on the same side as `lo`, the sum is not exactly halfway and `hi` moves.
        if n > 0 && ((lo < 0 && partials[n - 1] < 0) || (lo > 0 && partials[n - 1] > 0)) {
            let y = lo * 2
            let x = hi + y
            if y == x - hi { hi = x }
        }
        return hi
    }
}
