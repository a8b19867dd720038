/// The terms within one typo (optimal string alignment distance 1) of a query word, found by
/// enumerating the query's edits instead of walking the trie with a distance table.
///
/// A string one edit away from the query keeps some prefix `q[0..<i]` intact, then has one
/// substitution, insertion, deletion or swap of neighbours at `i`, then the rest of the query
/// intact. So for each `i` the search stands on the query's own path (one node per `i`), tries
/// the four edits there, and follows the rest of the query exactly from each: one lookup per
/// character, most of which fail at once. The table walk (``TypoSearch``) instead computes a
/// row for every trie node within budget, hundreds per word on a large vocabulary; on the
/// split benchmark corpus this search costs a small fraction of it.
///
/// Same results as ``TypoSearch`` with a budget of one (its tests hold both to the textbook
/// distance): in prefix mode, every node one edit from the query matches its whole subtree;
/// otherwise the term equal to such a string. Characters are Unicode scalars: an edit
/// replaces, adds or drops a whole UTF-8 sequence.
struct OneTypoSearch {
    let dictionary: TermDictionary
    /// The query's characters, each as its UTF-8 bytes packed low byte first.
    let chars: [UInt32]
    let prefix: Bool
    private(set) var spans: [TermSpan] = []

    private static let flags = MatchFlags.make(typos: 1, exact: false)

    /// Terms `lo..<hi`, which share their first `depth` bytes (a node of the implicit trie).
    struct Node {
        var lo: Int
        var hi: Int
        var depth: Int
    }

    init(dictionary: TermDictionary, scalars: [UInt32], prefix: Bool) {
        self.dictionary = dictionary
        self.chars = scalars.map { Self.pack(Unicode.Scalar($0) ?? "\u{FFFD}") }
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
        let m = chars.count
        guard m > 0, dictionary.count > 0 else { return }
        var node: Node? = Node(lo: 0, hi: dictionary.count, depth: 0)
        for i in 0...m {
            guard let here = node else { break }
            if i < m {
                // Deletion of q[i].
                if let n = follow(here, from: i &+ 1) { emit(n) }
                // Swap of q[i] and q[i + 1].
                if i &+ 1 < m && chars[i] != chars[i &+ 1],
                    let a = step(here, chars[i &+ 1]), let b = step(a, chars[i]), let n = follow(b, from: i &+ 2)
                {
                    emit(n)
                }
            }
            // Substitution of q[i], and insertion before q[i] (after the whole query only for
            // whole terms: in prefix mode that subtree is the query's own, an exact match).
            let inserts = i < m || !prefix
            forEachCharacter(of: here) { c, child in
                if i < m && c != chars[i], let n = follow(child, from: i &+ 1) { emit(n) }
                if inserts, let n = follow(child, from: i) { emit(n) }
            }
            node = i < m ? step(here, chars[i]) : nil
        }
    }

    /// Records a string one edit from the query that leads to node `n`.
    private mutating func emit(_ n: Node) {
        if prefix {
            spans.append(TermSpan(lo: n.lo, hi: n.hi, flags: Self.flags))
        } else if n.lo < n.hi && dictionary.length(n.lo) == n.depth {
            // The term equal to the string sorts first among those it prefixes.
            spans.append(TermSpan(lo: n.lo, hi: n.lo &+ 1, flags: Self.flags))
        }
    }

    /// The node reached from `n` by the query's characters `from...`, if every one is there.
    private func follow(_ n: Node, from: Int) -> Node? {
        var n = n
        var k = from
        while k < chars.count {
            guard let next = step(n, chars[k]) else { return nil }
            n = next
            k &+= 1
        }
        return n
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

    /// The child of `n` by byte `b`: two bisections in the node's id range.
    private func child(_ n: Node, _ b: UInt8) -> Node? {
        var a = n.lo
        let hi = n.hi
        // The term equal to the node's prefix (if any) sorts first and has no byte here.
        if a < hi && dictionary.length(a) == n.depth { a &+= 1 }
        var z = hi
        while a < z {
            let mid = (a &+ z) >> 1
            if dictionary.byte(mid, n.depth) < b { a = mid &+ 1 } else { z = mid }
        }
        guard a < hi, dictionary.byte(a, n.depth) == b else { return nil }
        let start = a
        z = hi
        while a < z {
            let mid = (a &+ z) >> 1
            if dictionary.byte(mid, n.depth) <= b { a = mid &+ 1 } else { z = mid }
        }
        return Node(lo: start, hi: a, depth: n.depth &+ 1)
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
        var i = n.lo
        let hi = n.hi
        if i < hi && dictionary.length(i) == n.depth { i &+= 1 }
        while i < hi {
            let b = dictionary.byte(i, n.depth)
            // The first id after i whose byte is above b: gallop, then bisect.
            var a = i &+ 1, step = 1
            var z = a
            while z < hi && dictionary.byte(z, n.depth) <= b {
                a = z &+ 1
                z = a &+ step
                step &<<= 1
            }
            if z > hi { z = hi }
            while a < z {
                let mid = (a &+ z) >> 1
                if dictionary.byte(mid, n.depth) <= b { a = mid &+ 1 } else { z = mid }
            }
            body(b, Node(lo: i, hi: a, depth: n.depth &+ 1))
            i = a
        }
    }
}
