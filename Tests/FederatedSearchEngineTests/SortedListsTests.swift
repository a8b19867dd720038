import Testing
@testable import FederatedSearchEngine

/// The span loops of candidate matching against plain set arithmetic on random lists: the
/// gallop, list intersection, bitmap filter and bitmap AND (with a predicate) each give exactly
/// the documents a set says, ascending.
struct SortedListsTests {
    /// `count` distinct documents below `limit`, ascending, from a seeded generator.
    static func list(_ count: Int, below limit: UInt32, seed: UInt64) -> [UInt32] {
        var rng = ReferencePropertyTests.Generator(state: seed)
        var set = Set<UInt32>()
        while set.count < min(count, Int(limit)) { set.insert(UInt32.random(in: 0..<limit, using: &rng)) }
        return set.sorted()
    }

    /// A bitmap of `wordCount` words with the bits of `docs` set.
    static func bitmap(_ docs: [UInt32], wordCount: Int) -> [UInt64] {
        var bits = [UInt64](repeating: 0, count: wordCount)
        for d in docs { bits[Int(d >> 6)] |= 1 << UInt64(d & 63) }
        return bits
    }

    @Test(arguments: 0..<20)
    func seekFindsTheFirstDocumentAtLeastTheOneSought(seed: Int) {
        let docs = Self.list(1 + seed * 7, below: 1000, seed: UInt64(seed))
        var rng = ReferencePropertyTests.Generator(state: UInt64(seed) &+ 99)
        for _ in 0..<50 {
            let from = Int.random(in: 0...docs.count, using: &rng)
            let doc = UInt32.random(in: 0...1001, using: &rng)
            let found = SortedLists.seek(doc, from: from, count: docs.count) { docs[$0] }
            let expected = docs[from...].firstIndex { $0 >= doc } ?? docs.count
            #expect(found == expected, "seek(\(doc), from: \(from))")
        }
    }

    @Test(arguments: 0..<20)
    func intersectionAndFilterKeepExactlyTheCommonDocuments(seed: Int) {
        let small = Self.list(seed * 5, below: 4000, seed: UInt64(seed))
        let large = Self.list(300 + seed * 90, below: 4000, seed: UInt64(seed) &+ 1000)
        let expected = small.filter(Set(large).contains)
        #expect(SortedLists.intersection(small.span, large.span) == expected)
        #expect(SortedLists.intersection(large.span, small.span) == large.filter(Set(small).contains))
        let wordCount = 4000 / 64 + 1
        // The large list's bitmap placed after another bitmap: `base` must be honoured.
        let bits = [UInt64](repeating: .max, count: wordCount) + Self.bitmap(large, wordCount: wordCount)
        #expect(SortedLists.filter(small.span, bits: bits.span, base: wordCount) == expected)
    }

    @Test(arguments: 0..<20)
    func andOfBitmapsKeepsTheDocumentsOfEveryOneThatPassTheTest(seed: Int) {
        let wordCount = 80
        let lists = (0..<(1 + seed % 3)).map { Self.list(600 + 200 * $0, below: 64 * 80, seed: UInt64(seed * 10 + $0)) }
        let bits = lists.flatMap { Self.bitmap($0, wordCount: wordCount) }
        let bases = lists.indices.map { $0 * wordCount }
        let common = lists.dropFirst().reduce(Set(lists[0])) { $0.intersection($1) }
        let keep: (UInt32) -> Bool = { $0 % 3 != 0 }
        let out = SortedLists.and(
            bits: bits.span, bases: bases, wordCount: wordCount, capacity: lists.map(\.count).min()!, keep: keep)
        #expect(out == common.filter(keep).sorted())
    }
}
