/// The sorted dictionary of indexed terms. A term's id is its rank in byte order, so all
/// terms sharing a prefix form one contiguous id range, found with two binary searches.
///
/// Terms live in one flat byte array with offsets: no per-term allocation, and comparisons
/// run on bytes (UTF-8 byte order equals code point order). A class, so that the query code
/// that reads it from each segment's snapshot takes one reference, not a copy of its arrays.
final class TermDictionary: Sendable {
    /// All term bytes, concatenated in id order.
    let bytes: [UInt8]
    /// `offsets[id]..<offsets[id + 1]` is the term's range in `bytes`.
    let offsets: [UInt32]
    /// The first trie levels with their children listed, for the typo walk.
    let trie: PrefixTrie

    /// Builds from terms already sorted by bytes and unique.
    convenience init(sortedTerms: [String]) {
        var bytes: [UInt8] = []
        var offsets: [UInt32] = [0]
        offsets.reserveCapacity(sortedTerms.count + 1)
        for t in sortedTerms {
            bytes.append(contentsOf: t.utf8)
            offsets.append(UInt32(bytes.count))
        }
        self.init(bytes: bytes, offsets: offsets)
    }

    /// Takes terms already concatenated in byte order (a saved segment's).
    init(bytes: [UInt8], offsets: [UInt32]) {
        self.bytes = bytes
        self.offsets = offsets
        trie = PrefixTrie(bytes: bytes, offsets: offsets)
    }

    /// The number of terms.
    var count: Int { offsets.count - 1 }

    /// The term's bytes.
    func term(_ id: Int) -> ArraySlice<UInt8> { bytes[Int(offsets[id])..<Int(offsets[id + 1])] }

    /// The term as a string.
    func string(_ id: Int) -> String { String(decoding: term(id), as: UTF8.self) }

    /// The length of term `id` in bytes.
    @inline(__always) func length(_ id: Int) -> Int { Int(offsets[id + 1] &- offsets[id]) }

    /// The byte at `depth` of term `id` (the caller knows the term is longer).
    @inline(__always) func byte(_ id: Int, _ depth: Int) -> UInt8 { bytes[Int(offsets[id]) &+ depth] }

    /// Three-way comparison of term `id` with `key`.
    func compare(_ id: Int, _ key: [UInt8]) -> Int {
        var i = Int(offsets[id])
        let end = Int(offsets[id + 1])
        var j = 0
        while i < end && j < key.count {
            let a = bytes[i]
            let b = key[j]
            if a != b { return a < b ? -1 : 1 }
            i &+= 1
            j &+= 1
        }
        if i == end { return j == key.count ? 0 : -1 }
        return 1
    }

    /// The first id whose term is not less than `key`.
    func lowerBound(_ key: [UInt8]) -> Int {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if compare(mid, key) < 0 { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The id of `key`, if indexed.
    func id(of key: [UInt8]) -> Int? {
        let i = lowerBound(key)
        return i < count && compare(i, key) == 0 ? i : nil
    }

    /// Whether term `id` starts with `prefix`.
    func hasPrefix(_ id: Int, _ prefix: [UInt8]) -> Bool {
        guard length(id) >= prefix.count else { return false }
        let base = Int(offsets[id])
        for k in 0..<prefix.count where bytes[base + k] != prefix[k] { return false }
        return true
    }

    /// The ids of all terms starting with `prefix` (possibly empty).
    func prefixRange(_ prefix: [UInt8]) -> Range<Int> {
        let lo = lowerBound(prefix)
        var hi = lo
        var step = 1
        // Gallop then bisect: short prefix ranges (the common case) cost a few comparisons.
        while hi < count && hasPrefix(hi, prefix) {
            hi += step
            step <<= 1
        }
        var a = hi - (step >> 1)
        var b = min(hi, count)
        if a < lo { a = lo }
        while a < b {
            let mid = (a + b) >> 1
            if hasPrefix(mid, prefix) { a = mid + 1 } else { b = mid }
        }
        return lo..<a
    }
}
