/// Damerau-Levenshtein distance (optimal string alignment) on short strings of Unicode
/// scalars, for checking single tokens at highlight time (the index uses ``TypoSearch``).
enum EditDistance {
    /// The distance between `a` and `b`, or the distance to the closest prefix of `b` when
    /// `prefix` (how far `a` is from being a prefix of `b`).
    static func distance(_ a: [UInt32], _ b: [UInt32], prefix: Bool) -> Int {
        let m = a.count
        let n = b.count
        if m == 0 { return 0 }
        var prev2 = [Int](repeating: 0, count: m + 1)
        var prev = Array(0...m)
        var cur = [Int](repeating: 0, count: m + 1)
        var best = prev[m]
        for j in 1...max(n, 1) where n > 0 {
            cur[0] = j
            for i in 1...m {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(prev[i] + 1, cur[i - 1] + 1, prev[i - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { v = min(v, prev2[i - 2] + 1) }
                cur[i] = v
            }
            best = min(best, cur[m])
            (prev2, prev, cur) = (prev, cur, prev2)
        }
        return prefix ? best : prev[m]
    }

    /// The Unicode scalars of UTF-8 bytes.
    static func scalars(_ bytes: [UInt8]) -> [UInt32] {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map(\.value)
    }
}
