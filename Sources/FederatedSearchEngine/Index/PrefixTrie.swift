/// The first levels of the dictionary's implicit trie, with each node's children listed.
///
/// The typo walk (``TypoSearch``) visits nearly every node of the first two or three levels
/// (any prefix that short is within two edits of the query's), and finding a node's children
/// in the sorted id range costs a search per child. Here the children of every node above
/// `depth` are precomputed, in byte order, as contiguous node numbers (breadth first).
/// Deeper nodes have few terms, and the walk finds their children in the range as before.
///
/// Each node below the root also has the characters its terms hold after its prefix, as a
/// ``CharacterMask``: a walk that can only go on by reading some characters of the query
/// skips a node whose terms lack them (``CharacterNeeds``).
///
/// Four levels: with the masks, the fourth still saves the typo walk real work for little
/// memory; a fifth saves almost nothing more.
struct PrefixTrie: Sendable {
    /// Nodes at depths below this have their children listed.
    static let depth = 4

    /// The node's term ids are `lo[n]..<hi[n]`.
    private(set) var lo: [UInt32] = [0]
    private(set) var hi: [UInt32]
    /// The byte that leads from the parent to the node.
    private(set) var byte: [UInt8] = [0]
    /// The node's children are `firstChild[n]..<childEnd[n]` (empty at the last level).
    private(set) var firstChild: [UInt32] = [0]
    private(set) var childEnd: [UInt32] = [0]
    /// The characters of the node's terms after its prefix (see ``CharacterMask``).
    private(set) var suffixCharacters: [UInt64] = [~0]
    /// The nodes of depth `d` are `levelStart[d]..<levelStart[d + 1]` (breadth first).
    private(set) var levelStart: [Int] = [0, 1]

    /// Node 0 is the root (every term, depth 0).
    init(bytes: [UInt8], offsets: [UInt32]) {
        let count = offsets.count - 1
        hi = [UInt32(count)]
        func length(_ id: Int) -> Int { Int(offsets[id + 1] - offsets[id]) }
        var level: [Int] = [0]
        for depth in 0..<Self.depth {
            var next: [Int] = []
            for n in level {
                firstChild[n] = UInt32(lo.count)
                var i = Int(lo[n])
                let end = Int(hi[n])
                // The term equal to the prefix (if any) sorts first and has no byte here.
                if i < end && length(i) == depth { i += 1 }
                while i < end {
                    let b = bytes[Int(offsets[i]) + depth]
                    var j = i + 1
                    while j < end && bytes[Int(offsets[j]) + depth] == b { j += 1 }
                    next.append(lo.count)
                    lo.append(UInt32(i))
                    hi.append(UInt32(j))
                    byte.append(b)
                    firstChild.append(0)
                    childEnd.append(0)
                    var mask: UInt64 = 0
                    for id in i..<j {
                        for at in (Int(offsets[id]) + depth + 1)..<Int(offsets[id + 1]) { mask |= CharacterMask.bit(bytes[at]) }
                    }
                    suffixCharacters.append(mask)
                    i = j
                }
                childEnd[n] = UInt32(lo.count)
            }
            level = next
            levelStart.append(lo.count)
        }
    }
}

/// Sets of characters as 64 bits, for a quick "cannot contain" test: each lowercase ASCII letter
/// and digit has its own bit, other ASCII bytes share 27 bits, and every byte of a multi-byte
/// character sets the last. A mask that lacks a character's bit proves the character absent;
/// one that has it proves nothing.
enum CharacterMask {
    @inline(__always) static func bit(_ b: UInt8) -> UInt64 {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return 1 << UInt64(b &- UInt8(ascii: "a"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 1 << UInt64(26 &+ b &- UInt8(ascii: "0"))
        case 0x80...: return 1 << 63
        default: return 1 << UInt64(36 &+ b % 27)
        }
    }

    /// The bits of a character (a scalar): a multi-byte one sets only the shared last bit.
    @inline(__always) static func bit(scalar c: UInt32) -> UInt64 { c < 0x80 ? bit(UInt8(c)) : 1 << 63 }
}
