/// Searches in a node of the dictionary's implicit trie: an id range whose terms share their
/// first bytes and are sorted by the next one. The byte of an id comes from `byteAt`, so the
/// typo walk (raw buffers) and the edit search (the dictionary) share one implementation;
/// inlined, the closure costs nothing.
enum TrieRanges {
    /// The first id in `lo..<hi` whose byte is not below `b`.
    @inline(__always)
    static func lowerBound(_ lo: Int, _ hi: Int, _ b: UInt8, _ byteAt: (Int) -> UInt8) -> Int {
        var a = lo
        var z = hi
        while a < z {
            let mid = (a &+ z) >> 1
            if byteAt(mid) < b { a = mid &+ 1 } else { z = mid }
        }
        return a
    }

    /// The first id in `lo..<hi` whose byte is above `b`.
    @inline(__always)
    static func upperBound(_ lo: Int, _ hi: Int, _ b: UInt8, _ byteAt: (Int) -> UInt8) -> Int {
        var a = lo
        var z = hi
        while a < z {
            let mid = (a &+ z) >> 1
            if byteAt(mid) <= b { a = mid &+ 1 } else { z = mid }
        }
        return a
    }

    /// The ids of `lo..<hi` whose byte is `b` (two bisections), or nil if none.
    @inline(__always)
    static func child(_ lo: Int, _ hi: Int, _ b: UInt8, _ byteAt: (Int) -> UInt8) -> Range<Int>? {
        let start = lowerBound(lo, hi, b, byteAt)
        guard start < hi, byteAt(start) == b else { return nil }
        return start..<upperBound(start, hi, b, byteAt)
    }

    /// The end of the run of ids from `i` (below `hi`) with the byte of `i`: gallop, then
    /// bisect (a child is usually a small part of its parent's range).
    @inline(__always)
    static func runEnd(from i: Int, _ hi: Int, _ byteAt: (Int) -> UInt8) -> Int {
        let b = byteAt(i)
        var a = i &+ 1
        var step = 1
        var z = a
        while z < hi && byteAt(z) <= b {
            a = z &+ 1
            z = a &+ step
            step &<<= 1
        }
        return upperBound(a, min(z, hi), b, byteAt)
    }
}
