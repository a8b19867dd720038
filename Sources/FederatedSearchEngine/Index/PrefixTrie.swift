/// The first levels of the dictionary's implicit trie, with each node's children listed.
///
/// The typo walk (``TypoSearch``) visits nearly every node of the first two or three levels
/// (any prefix that short is within two edits of the query's), and finding a node's children
/// in the sorted id range costs a search per child. Here the children of every node above
/// `depth` are precomputed, in byte order, as contiguous node numbers (breadth first).
/// Deeper nodes have few terms, and the walk finds their children in the range as before.
struct PrefixTrie: Sendable {
    /// Nodes at depths below this have their children listed.
    static let depth = 3

    /// The node's term ids are `lo[n]..<hi[n]`.
    private(set) var lo: [UInt32] = [0]
    private(set) var hi: [UInt32]
    /// The byte that leads from the parent to the node.
    private(set) var byte: [UInt8] = [0]
    /// The node's children are `firstChild[n]..<childEnd[n]` (empty at the last level).
    private(set) var firstChild: [UInt32] = [0]
    private(set) var childEnd: [UInt32] = [0]

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
                    i = j
                }
                childEnd[n] = UInt32(lo.count)
            }
            level = next
        }
    }
}
