/// The terms within a few typos (optimal string alignment distance) of a query word, found
/// by enumerating the query's edits instead of walking the trie with a distance table. Used
/// for a budget of one typo (see ``TypoSearch/run()`` for two).
///
/// A string one edit away from the query keeps some prefix `q[0..<i]` intact, then has one
/// substitution, insertion, deletion or swap of neighbours at `i`, then the rest of the query.
/// So the search stands on the query's own path (one node per `i`), tries the four edits
/// there, and goes on from each: with no budget left it follows the rest of the query
/// exactly (one lookup per character, most of which fail at once), else it does the same
/// again from there. The table walk (``TypoSearch``) instead computes a row for every trie
/// node within budget, hundreds to thousands per word on a large vocabulary.
///
/// Same results as ``TypoSearch`` (its tests hold both to the textbook distance): in prefix
/// mode, every node within the budget of the query matches its whole subtree with the fewest
/// edits that reach it; otherwise the term equal to such a string. A string reached by
/// several edit paths is recorded for each; ``TermSpan/normalized(_:)`` keeps its best.
/// Characters are Unicode scalars: an edit replaces, adds or drops a whole UTF-8 sequence.
struct EditSearch {
    let dictionary: TermDictionary
    /// The query's characters, each as its UTF-8 bytes packed low byte first.
    let chars: [UInt32]
    let prefix: Bool
    /// At most this many edits (1 or 2).
    let maxEdits: Int
    private(set) var spans: [TermSpan] = []

    /// Terms `lo..<hi`, which share their first `depth` bytes (a node of the implicit trie);
    /// `listed` is its number in the dictionary's ``PrefixTrie`` while its children are
    /// listed there (the top levels, where every search looks), else -1.
    struct Node {
        var lo: Int
        var hi: Int
        var depth: Int
        var listed: Int = -1
    }

    init(dictionary: TermDictionary, scalars: [UInt32], maxEdits: Int, prefix: Bool) {
        self.dictionary = dictionary
        self.chars = scalars.map { Self.pack(Unicode.Scalar($0) ?? "\u{FFFD}") }
        self.maxEdits = maxEdits
        self.prefix = prefix
    }

    /// A scalar's UTF-8 bytes in one integer (low byte first; a sequence is 1 to 4 bytes).
    static func pack(_ scalar: Unicode.Scalar) -> UInt32 {
        var packed: UInt32 = 0
        var shift: UInt32 = 0
        for b in scalar.utf8 {
            packed |= UInt32(b) << shift
            shift += 8
        }
        return packed
    }

    mutating func run() {
        guard !chars.isEmpty, dictionary.count > 0 else { return }
        search(Node(lo: 0, hi: dictionary.count, depth: 0, listed: 0), from: 0, used: 0)
    }

    /// From node `start`, reached by the query's first `k` characters with `used` edits:
    /// follows the rest of the query, trying every edit at every position while budget is
    /// left, and records each string that uses up the query.
    private mutating func search(_ start: Node, from k: Int, used: Int) {
        let m = chars.count
        var node: Node? = start
        for i in k...m {
            guard let here = node else { return }
            if used < maxEdits {
                let next = used &+ 1
                if i < m {
                    // Deletion of q[i].
                    search(here, from: i &+ 1, used: next)
                    // Swap of q[i] and q[i + 1].
                    if i &+ 1 < m && chars[i] != chars[i &+ 1], let a = step(here, chars[i &+ 1]), let b = step(a, chars[i]) {
                        search(b, from: i &+ 2, used: next)
                    }
                }
                // Substitution of q[i], and insertion before q[i] (after the whole query only
                // for whole terms: in prefix mode that subtree is already matched with fewer
                // edits).
                let inserts = i < m || !prefix
                if i < m || inserts {
                    forEachCharacter(of: here) { c, child in
                        if i < m && c != chars[i] { search(child, from: i &+ 1, used: next) }
                        if inserts { search(child, from: i, used: next) }
                    }
                }
            }
            if i == m {
                if used > 0 { emit(here, typos: used) }
                return
            }
            node = step(here, chars[i])
        }
    }

    /// Records a string `typos` edits from the query that leads to node `n`.
    private mutating func emit(_ n: Node, typos: Int) {
        let flags = MatchFlags.make(typos: typos, exact: false)
        if prefix {
            spans.append(TermSpan(lo: n.lo, hi: n.hi, flags: flags))
        } else if n.lo < n.hi && dictionary.length(n.lo) == n.depth {
            // The term equal to the string sorts first among those it prefixes.
            spans.append(TermSpan(lo: n.lo, hi: n.lo &+ 1, flags: flags))
        }
    }

    /// The node reached from `n` by one character (its packed UTF-8 bytes).
    private func step(_ n: Node, _ packed: UInt32) -> Node? {
        var n = n
        var rest = packed
        repeat {
            guard let next = child(n, UInt8(truncatingIfNeeded: rest)) else { return nil }
            n = next
            rest >>= 8
        } while rest != 0
        return n
    }

    /// The child of `n` by byte `b`: from the trie's list at the top levels (a short scan of
    /// contiguous memory), else two bisections in the node's id range.
    private func child(_ n: Node, _ b: UInt8) -> Node? {
        let trie = dictionary.trie
        if n.listed >= 0 && n.depth < PrefixTrie.depth {
            var c = Int(trie.firstChild[n.listed])
            let end = Int(trie.childEnd[n.listed])
            while c < end && trie.byte[c] < b { c &+= 1 }
            guard c < end && trie.byte[c] == b else { return nil }
            return Node(lo: Int(trie.lo[c]), hi: Int(trie.hi[c]), depth: n.depth &+ 1, listed: c)
        }
        var lo = n.lo
        // The term equal to the node's prefix (if any) sorts first and has no byte here.
        if lo < n.hi && dictionary.length(lo) == n.depth { lo &+= 1 }
        guard let r = TrieRanges.child(lo, n.hi, b, { dictionary.byte($0, n.depth) }) else { return nil }
        return Node(lo: r.lowerBound, hi: r.upperBound, depth: n.depth &+ 1)
    }

    /// Calls `body` with each character that follows node `n` (packed UTF-8) and its node.
    private func forEachCharacter(of n: Node, _ body: (UInt32, Node) -> Void) {
        forEachByte(of: n) { b, child in
            let need = b < 0x80 ? 0 : b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1
            if need == 0 {
                body(UInt32(b), child)
            } else {
                continuation(child, packed: UInt32(b), shift: 8, need: need, body)
            }
        }
    }

    /// The rest of a multi-byte character: `need` more bytes below `n`.
    private func continuation(_ n: Node, packed: UInt32, shift: UInt32, need: Int, _ body: (UInt32, Node) -> Void) {
        forEachByte(of: n) { b, child in
            let p = packed | UInt32(b) << shift
            if need == 1 { body(p, child) } else { continuation(child, packed: p, shift: shift &+ 8, need: need &- 1, body) }
        }
    }

    /// Calls `body` with each distinct byte at `n.depth` in the node's range and its child.
    private func forEachByte(of n: Node, _ body: (UInt8, Node) -> Void) {
        let trie = dictionary.trie
        if n.listed >= 0 && n.depth < PrefixTrie.depth {
            for c in Int(trie.firstChild[n.listed])..<Int(trie.childEnd[n.listed]) {
                body(trie.byte[c], Node(lo: Int(trie.lo[c]), hi: Int(trie.hi[c]), depth: n.depth &+ 1, listed: c))
            }
            return
        }
        var i = n.lo
        let hi = n.hi
        if i < hi && dictionary.length(i) == n.depth { i &+= 1 }
        while i < hi {
            let b = dictionary.byte(i, n.depth)
            let end = TrieRanges.runEnd(from: i, hi) { dictionary.byte($0, n.depth) }
            body(b, Node(lo: i, hi: end, depth: n.depth &+ 1))
            i = end
        }
    }
}
