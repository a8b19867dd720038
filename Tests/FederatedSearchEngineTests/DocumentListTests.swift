import Testing
@testable import FederatedSearchEngine

/// `DocumentList` over a slice whose indices do not start at zero (as a word's posting list
/// is): reads from zero, and drops documents without disturbing the rest.
struct DocumentListTests {
    let postings: [UInt32] = [1, 3, 5, 7, 9, 11, 13]

    /// The slice `[5, 7, 9, 11]` of the postings.
    var list: DocumentList { DocumentList(postings[2..<6]) }

    @Test func readsFromZeroOverASlice() {
        #expect(list.count == 4 && list[0] == 5 && list[3] == 11)
        #expect(Array(list) == [5, 7, 9, 11])
        #expect(list.enumerated().map { $0.offset } == [0, 1, 2, 3])
    }

    static let cases: [(dropped: Set<UInt32>, kept: [UInt32])] = [
        ([], [5, 7, 9, 11]), ([5], [7, 9, 11]), ([11], [5, 7, 9]), ([7, 9], [5, 11]),
        ([5, 7, 9, 11], []), ([1, 13], [5, 7, 9, 11]),
    ]

    @Test(arguments: cases)
    func dropsWhatItIsAsked(dropped: Set<UInt32>, kept: [UInt32]) {
        var l = list
        l.removeAll { dropped.contains($0) }
        #expect(Array(l) == kept)
        #expect(l.count == kept.count && (kept.isEmpty || l[0] == kept[0]))
        #expect(Array(list.filtered { !dropped.contains($0) }) == kept)
    }
}
