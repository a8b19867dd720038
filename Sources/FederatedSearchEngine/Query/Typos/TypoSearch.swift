import FederatedSearchCore

/// A range of term ids that a query word matches, with how it matches.
struct TermSpan: Equatable {
    var lo: Int
    var hi: Int
    /// `typos << 1 | nonExact` (see ``MatchFlags``).
    var flags: UInt32

    /// The same term ids as `spans`, each with its best (lowest) flags, as disjoint ranges
    /// ascending by id, neighbours with equal flags merged. A word's spans overlap (a typo
    /// prefix subtree holds the exact prefix range); disjoint spans let a document's postings
    /// be matched against them by merging two ascending lists.
    static func normalized(_ spans: [TermSpan]) -> [TermSpan] {
        let live = spans.filter { $0.lo < $0.hi }
        if live.count <= 1 { return live }
        var events: [(at: Int, flags: Int, delta: Int)] = []
        events.reserveCapacity(live.count * 2)
        for s in live {
            events.append((s.lo, Int(s.flags), 1))
            events.append((s.hi, Int(s.flags), -1))
        }
        events.sort { $0.at < $1.at }
        var open = [Int](repeating: 0, count: 16)
        var out: [TermSpan] = []
        var i = 0
        var from = events[0].at
        while i < events.count {
            let at = events[i].at
            if at > from, let best = open.firstIndex(where: { $0 > 0 }) {
                let flags = UInt32(best)
                if let last = out.last, last.hi == from, last.flags == flags {
                    out[out.count - 1].hi = at
                } else {
                    out.append(TermSpan(lo: from, hi: at, flags: flags))
                }
            }
            while i < events.count && events[i].at == at {
                open[events[i].flags] += events[i].delta
                i += 1
            }
            from = at
        }
        return out
    }
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
        var typos = Self.typos(first)
        var nonExact = first & 1
        for f in flags.dropFirst() {
            typos = min(typos, Self.typos(f))
            nonExact = min(nonExact, f & 1)
        }
        return UInt32(typos) << 1 | nonExact
    }
}

/// Finds the terms within a Damerau-Levenshtein distance (optimal string alignment) of a
/// query word by walking the sorted dictionary as an implicit trie: terms sharing a prefix
/// are one id range, each trie node is a row of the edit-distance table, a state of the
/// query's ``TypoAutomaton`` (computed once per distinct row and character, then read from
/// its table), and a node whose row exceeds the budget everywhere is skipped with its whole
/// subtree. In prefix mode a node within budget matches its whole subtree.
///
/// Distances count Unicode scalars, not bytes: the walk descends byte by byte, but the
/// bytes of a multi-byte character only extend the table once the character is complete,
/// so replacing "é" by "è" or dropping a Cyrillic letter is one edit.
struct TypoSearch {
    let dictionary: TermDictionary
    /// The query word's scalars.
    let query: [UInt32]
    let maxTypos: Int
    let prefix: Bool
    private(set) var spans: [TermSpan] = []

    /// The query word's UTF-8 bytes.
    private let queryBytes: [UInt8]

    init(dictionary: TermDictionary, query: [UInt8], maxTypos: Int, prefix: Bool) {
        self.dictionary = dictionary
        queryBytes = query
        self.query = String(decoding: query, as: UTF8.self).unicodeScalars.map(\.value)
        self.maxTypos = maxTypos
        self.prefix = prefix
    }

    /// Runs the search; matches with at least one typo are in ``spans`` (exact and plain
    /// prefix matches are the caller's). A budget of one goes to ``EditSearch``.
    mutating func run() {
        let m = query.count
        guard m > 0, dictionary.count > 0, !dictionary.bytes.isEmpty else { return }
        if maxTypos != 2 || !TypoAutomaton.serves(query, maxTypos: maxTypos) {
            // One typo: enumerating the query's edits visits far fewer nodes than the table.
            // (For two, the enumeration branches twice at every node near the root and costs
            // more than the table walk.) So do words the automaton cannot take (very long, or
            // of more than 255 distinct characters).
            var edits = EditSearch(dictionary: dictionary, scalars: query, maxEdits: maxTypos, prefix: prefix)
            edits.run()
            spans = edits.spans
            return
        }
        var walk = Walk(
            bytes: dictionary.bytes, offsets: dictionary.offsets, maxTypos: Int32(maxTypos), prefix: prefix,
            trie: dictionary.trie, automaton: TypoAutomaton(query: query, maxTypos: maxTypos))
        walk.descend(lo: 0, hi: dictionary.count, depth: 0, state: 0, partial: 0, pending: 0, node: 0)
        spans = walk.spans
    }

    /// The trie walk over the dictionary's arrays.
    private struct Walk {
        let bytes: [UInt8]
        let offsets: [UInt32]
        let maxTypos: Int32
        let prefix: Bool
        let trie: PrefixTrie
        var automaton: TypoAutomaton
        var spans: [TermSpan] = []

        @inline(__always) func length(_ id: Int) -> Int { Int(offsets[id &+ 1] &- offsets[id]) }
        @inline(__always) func byte(_ id: Int, _ depth: Int) -> UInt8 { bytes[Int(offsets[id]) &+ depth] }

        /// Visits the trie node of terms `lo..<hi`, which share their first `depth` bytes, in
        /// automaton state `state` (the row of the complete characters among those bytes);
        /// `partial` holds the bits of a character still missing `pending` bytes. `node` is the
        /// node's number in the ``PrefixTrie`` (-1 below its levels).
        mutating func descend(lo: Int, hi: Int, depth: Int, state: Int32, partial: UInt32, pending: Int, node: Int) {
            var i = lo
            let s = Int(state)
            if pending > 0 {
                // Inside a character: no table row to check, and no valid term ends here.
                if i < hi && length(i) == depth { i &+= 1 }
            } else {
                let distance = automaton.distance[s]
                if i < hi && length(i) == depth {
                    if !prefix && distance > 0 && distance <= maxTypos {
                        spans.append(TermSpan(lo: i, hi: i + 1, flags: MatchFlags.make(typos: Int(distance), exact: false)))
                    }
                    i &+= 1
                }
                if prefix && distance <= maxTypos {
                    if distance == 0 { return }
                    spans.append(TermSpan(lo: lo, hi: hi, flags: MatchFlags.make(typos: Int(distance), exact: false)))
                    // Deeper, only a row with a smaller cell before the last can do better.
                    if automaton.bestBeforeLast[s] >= distance { return }
                }
            }
            let allowed = pending == 0 && automaton.rowMin[s] == maxTypos ? automaton.edges[s] : nil
            if pending == 0 && node > 0 && !automaton.characterNeeds[s].admits(trie.suffixCharacters[node]) {
                // A listed node whose terms lack characters every match below it needs.
                return
            }
            if node >= 0 && depth < PrefixTrie.depth {
                // The children are listed, in byte order.
                var c = Int(trie.firstChild[node])
                let end = Int(trie.childEnd[node])
                if var rest = allowed {
                    // Only the children of the allowed bytes (a few), each found by bisection.
                    while c < end, let b = rest.popFirst() {
                        var top = end
                        while c < top {
                            let mid = (c &+ top) >> 1
                            if trie.byte[mid] < b { c = mid &+ 1 } else { top = mid }
                        }
                        guard c < end && trie.byte[c] == b else { continue }
                        child(
                            lo: Int(trie.lo[c]), hi: Int(trie.hi[c]), byte: b, depth: depth, state: state, partial: partial,
                            pending: pending, node: c)
                        c &+= 1
                    }
                    return
                }
                while c < end {
                    let b = trie.byte[c]
                    child(
                        lo: Int(trie.lo[c]), hi: Int(trie.hi[c]), byte: b, depth: depth, state: state, partial: partial,
                        pending: pending, node: c)
                    c &+= 1
                }
                return
            }
            if let allowed {
                // Only the children of the allowed bytes, each found by bisection.
                var rest = allowed
                while let b = rest.popFirst() {
                    guard let r = TrieRanges.child(i, hi, b, { byte($0, depth) }) else { continue }
                    child(
                        lo: r.lowerBound, hi: r.upperBound, byte: b, depth: depth, state: state, partial: partial,
                        pending: pending, node: -1)
                    i = r.upperBound
                }
                return
            }
            while i < hi {
                let b = byte(i, depth)
                let a = TrieRanges.runEnd(from: i, hi) { byte($0, depth) }
                child(lo: i, hi: a, byte: b, depth: depth, state: state, partial: partial, pending: pending, node: -1)
                i = a
            }
        }

        /// Reads byte `b` into the character being read, and once it is complete moves the
        /// automaton: the child (terms `lo..<hi`) is visited if its row is not over budget.
        @inline(__always)
        mutating func child(
            lo: Int, hi: Int, byte b: UInt8, depth: Int, state: Int32, partial: UInt32, pending: Int,
            node: Int
        ) {
            let (c, need) = TypoSearch.decode(b, partial: partial, pending: pending)
            if need > 0 {
                descend(lo: lo, hi: hi, depth: depth &+ 1, state: state, partial: c, pending: need, node: node)
                return
            }
            guard let next = automaton.next(state, automaton.characterClass(c)) else { return }
            descend(lo: lo, hi: hi, depth: depth &+ 1, state: next, partial: 0, pending: 0, node: node)
        }
    }

    /// Adds byte `b` to a character being read: the bits so far and the bytes still missing.
    @inline(__always) static func decode(_ b: UInt8, partial: UInt32, pending: Int) -> (UInt32, Int) {
        let v = UInt32(b)
        if pending > 0 { return (partial << 6 | (v & 0x3F), pending - 1) }
        if v < 0x80 { return (v, 0) }
        if v >= 0xF0 { return (v & 0x07, 3) }
        if v >= 0xE0 { return (v & 0x0F, 2) }
        return (v & 0x1F, 1)
    }
}

/// A set of ASCII characters, as 128 bits.
struct ASCIISet {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    /// Adds a scalar; false (and nothing added) if it is not ASCII.
    @inline(__always) mutating func insert(_ scalar: UInt32) -> Bool {
        guard scalar < 128 else { return false }
        if scalar < 64 { low |= 1 << UInt64(scalar) } else { high |= 1 << UInt64(scalar &- 64) }
        return true
    }

    /// Adds every character of `other`.
    @inline(__always) mutating func formUnion(_ other: ASCIISet) {
        low |= other.low
        high |= other.high
    }

    /// Whether the byte is one of the characters (a byte of 128 or more never is).
    @inline(__always) func contains(_ b: UInt8) -> Bool {
        b < 64 ? low & (1 << UInt64(b)) != 0 : b < 128 ? high & (1 << UInt64(b &- 64)) != 0 : false
    }

    /// Removes and returns the smallest character (nil when empty): the walk goes through
    /// them in ascending order without allocating.
    @inline(__always) mutating func popFirst() -> UInt8? {
        if low != 0 {
            let b = UInt8(low.trailingZeroBitCount)
            low &= low &- 1
            return b
        }
        if high != 0 {
            let b = UInt8(64 &+ high.trailingZeroBitCount)
            high &= high &- 1
            return b
        }
        return nil
    }
}
