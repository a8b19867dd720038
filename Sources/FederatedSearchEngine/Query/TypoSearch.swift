/// A range of term ids that a query word matches, with how it matches.
struct TermSpan: Equatable {
    var lo: Int
    var hi: Int
    /// `typos << 1 | nonExact` (see ``MatchFlags``).
    var flags: UInt32
}

/// Packs how a word matched a document into the top 4 bits of a hit; lower is better, so the
/// best of several matching terms is the minimum.
enum MatchFlags {
    static let shift: UInt32 = 28
    static let postingMask: UInt32 = (1 << 28) - 1
    static func make(typos: Int, exact: Bool) -> UInt32 { UInt32(typos) << 1 | (exact ? 0 : 1) }
    @inline(__always) static func typos(_ flags: UInt32) -> Int { Int(flags >> 1) }
    @inline(__always) static func isExact(_ flags: UInt32) -> Bool { flags & 1 == 0 }

    /// Flags no better than any of `flags` in each component (fewest typos, exact if any is).
    static func floor(_ flags: [UInt32]) -> UInt32 {
        guard let first = flags.first else { return 0 }
        var typos = Self.typos(first), nonExact = first & 1
        for f in flags.dropFirst() {
            typos = min(typos, Self.typos(f))
            nonExact = min(nonExact, f & 1)
        }
        return UInt32(typos) << 1 | nonExact
    }
}

/// Finds the terms within a Damerau-Levenshtein distance (optimal string alignment) of a
/// query word by walking the sorted dictionary as an implicit trie: terms sharing a prefix
/// are one id range, each trie node extends one row of the edit-distance table, and a node
/// whose row exceeds the budget everywhere is skipped with its whole subtree. In prefix
/// mode a node within budget matches its whole subtree. Distances count UTF-8 bytes.
struct TypoSearch {
    let dictionary: TermDictionary
    let query: [UInt8]
    let maxTypos: Int
    let prefix: Bool
    private var rows: [Int]
    private(set) var spans: [TermSpan] = []

    init(dictionary: TermDictionary, query: [UInt8], maxTypos: Int, prefix: Bool) {
        self.dictionary = dictionary
        self.query = query
        self.maxTypos = maxTypos
        self.prefix = prefix
        rows = [Int](repeating: 0, count: (query.count + maxTypos + 3) * (query.count + 1))
    }

    /// Runs the search; matches with at least one typo are in ``spans`` (exact and plain
    /// prefix matches are the caller's).
    mutating func run() {
        let m = query.count
        for k in 0...m { rows[k] = k }
        descend(lo: 0, hi: dictionary.count, depth: 0, lastByte: 0)
    }

    private mutating func descend(lo: Int, hi: Int, depth: Int, lastByte: UInt8) {
        let m = query.count
        let width = m + 1
        let row = depth * width
        let distance = rows[row + m]
        var i = lo
        if i < hi && dictionary.length(i) == depth {
            if !prefix && distance > 0 && distance <= maxTypos {
                spans.append(TermSpan(lo: i, hi: i + 1, flags: MatchFlags.make(typos: distance, exact: false)))
            }
            i += 1
        }
        if prefix && distance <= maxTypos {
            if distance == 0 { return }
            spans.append(TermSpan(lo: lo, hi: hi, flags: MatchFlags.make(typos: distance, exact: false)))
            var best = distance
            for k in 0..<m where rows[row + k] < best { best = rows[row + k] }
            if best >= distance { return }
        }
        let next = row + width
        guard next + width <= rows.count else { return }
        while i < hi {
            let b = dictionary.byte(i, depth)
            var a = i + 1, z = hi  // first id in (i, hi) whose byte at depth is above b
            while a < z {
                let mid = (a + z) >> 1
                if dictionary.byte(mid, depth) <= b { a = mid + 1 } else { z = mid }
            }
            rows[next] = depth + 1
            var rowMin = depth + 1
            for k in 1...m {
                let cost = query[k - 1] == b ? 0 : 1
                var v = min(rows[row + k] + 1, rows[next + k - 1] + 1, rows[row + k - 1] + cost)
                if k > 1 && depth > 0 && query[k - 1] == lastByte && query[k - 2] == b {
                    v = min(v, rows[row - width + k - 2] + 1)
                }
                rows[next + k] = v
                if v < rowMin { rowMin = v }
            }
            if rowMin <= maxTypos { descend(lo: i, hi: a, depth: depth + 1, lastByte: b) }
            i = a
        }
    }
}
